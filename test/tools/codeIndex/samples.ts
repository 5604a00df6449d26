// Realistic source files for the code index tests, one per language, with the shapes that trip
// simple outlines: nested classes, methods, exported arrow functions, decorators and nested
// defs, Go methods with receivers, Rust impl blocks and traits.

export const TYPESCRIPT = `import { readFile } from "node:fs/promises";

export interface Options {
  retries: number;
  onRetry(attempt: number): void;
}

export type Handler<T> = (value: T) => Promise<void>;

export enum Level {
  Low,
  High,
}

export const DEFAULT_RETRIES = 3;

export const loadConfig = async <T>(path: string): Promise<T> => {
  const text = await readFile(path, "utf8");
  return JSON.parse(text) as T;
};

export function createClient(options: Options): Client {
  function backoff(attempt: number): number {
    return 2 ** attempt;
  }
  return new Client(options, backoff);
}

export class Client {
  private count = 0;
  readonly onError = (error: Error) => console.error(error);

  constructor(private readonly options: Options, private readonly delay: (n: number) => number) {}

  async send(body: string): Promise<string> {
    this.count++;
    return body;
  }

  static create(): Client {
    return new Client({ retries: 1, onRetry() {} }, () => 0);
  }

  get sent(): number {
    return this.count;
  }
}

export namespace Shapes {
  export class Circle {
    area(radius: number): number {
      return Math.PI * radius * radius;
    }
  }
}

export default function main(): void {}
`;

export const JAVASCRIPT = `const express = require("express");

function handler(req, res) {
  res.send("ok");
}

class Router {
  #routes = [];
  add(path, fn) {
    this.#routes.push([path, fn]);
  }
}

export const render = (view) => <div>{view}</div>;

module.exports = { handler, Router };
`;

export const PYTHON = `import functools
from dataclasses import dataclass

MAX_SIZE = 1024


def retry(times):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper
    return decorator


@dataclass
class Point:
    x: float
    y: float

    @property
    def norm(self) -> float:
        return (self.x ** 2 + self.y ** 2) ** 0.5

    @staticmethod
    def origin() -> "Point":
        return Point(0, 0)

    class Meta:
        ordering = ["x"]

        def describe(self):
            return "meta"


async def fetch(url: str) -> bytes:
    return b""
`;

export const GO = `package store

import "errors"

const MaxItems = 100

var ErrMissing = errors.New("missing")

type Item struct {
	ID   int
	Name string
}

type Store interface {
	Get(id int) (*Item, error)
	Put(item *Item) error
}

type memory struct {
	items map[int]*Item
}

func NewMemory() *memory {
	return &memory{items: map[int]*Item{}}
}

func (m *memory) Get(id int) (*Item, error) {
	item, ok := m.items[id]
	if !ok {
		return nil, ErrMissing
	}
	return item, nil
}

func (m memory) Len() int {
	return len(m.items)
}

type ID = int
`;

export const RUST = `use std::collections::HashMap;

pub const LIMIT: usize = 10;

pub struct Cache<K, V> {
    map: HashMap<K, V>,
}

pub enum Event {
    Hit,
    Miss(String),
}

pub trait Store {
    fn get(&self, key: &str) -> Option<String>;
    fn put(&mut self, key: String, value: String) {
        let _ = (key, value);
    }
}

impl<K: std::hash::Hash + Eq, V> Cache<K, V> {
    pub fn new() -> Self {
        Cache { map: HashMap::new() }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }
}

impl Store for Cache<String, String> {
    fn get(&self, key: &str) -> Option<String> {
        self.map.get(key).cloned()
    }
}

pub mod util {
    pub fn helper() -> u32 {
        1
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

type Map = HashMap<String, String>;
`;
