import { dollars } from "../text/money.ts";
import { defineCommand } from "citty";
import { SetupRequiredError } from "../errors/configError.ts";
import { prepareModel } from "../config/modelSetup.ts";
import { loadModelCatalog } from "../config/modelsFile.ts";
import type { ModelInfo } from "../model/catalog.ts";
import { createCliContext } from "./context.ts";

function tokens(count: number): string {
  return count >= 1_000_000 ? `${count / 1_000_000}M` : `${Math.round(count / 1000)}K`;
}

/** A model's cells: name, context, output, price, label. */
function modelCells(model: ModelInfo): string[] {
  const price = model.price
    ? `$${dollars(model.price.input)}/$${dollars(model.price.output)} per MTok`
    : "price unknown";
  return [
    model.spec,
    `${tokens(model.contextWindow)} context`,
    `${tokens(model.maxTokens)} output`,
    price,
    model.label ?? "",
  ];
}

/** One line per model, each column as wide as its widest cell (measured: a price or a name may be longer). */
export function modelRows(models: Iterable<ModelInfo>): string[] {
  const rows = [...models].map(modelCells);
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => Bun.stringWidth(row[column] ?? "")))) ?? [];
  const pad = (cell: string, column: number) => cell + " ".repeat((widths[column] ?? 0) - Bun.stringWidth(cell));
  return rows.map((row) => row.map(pad).join("  ").trimEnd());
}

/** Lists the models Garuda knows and says which one is in use, and where its key comes from. */
export const modelsCommand = defineCommand({
  meta: { name: "models", description: "List the models Garuda knows and show which one is in use." },
  args: {
    model: {
      type: "string",
      alias: "m",
      description: "The model to use (beats GARUDA_MODEL and the models.json default)",
      valueHint: "model",
    },
  },
  run({ args }) {
    const ctx = createCliContext(process.env);
    const catalog = loadModelCatalog(ctx.paths.models);
    const lines = [`Models (built in, extended by ${ctx.paths.models}):`];
    for (const row of modelRows(catalog.models.values())) lines.push(`  ${row}`);
    try {
      const prepared = prepareModel({ ...ctx, modelFlag: args.model });
      const { credential } = prepared;
      const key = credential
        ? `key ${credential.name} from ` +
          `${credential.source === "environment" ? "the environment" : ctx.paths.credentials}`
        : "no key needed";
      lines.push("", `In use: ${prepared.model.spec} (from ${prepared.choice.source}); ${key}.`);
      if (prepared.baseUrl) lines.push(`Endpoint: ${prepared.baseUrl}`);
    } catch (error) {
      if (!(error instanceof SetupRequiredError)) throw error;
      lines.push("", error.message);
    }
    process.stdout.write(`${lines.join("\n")}\n`);
  },
});
