// A tiny program for test/build/binary.test.ts, compiled like the real binary. With no
// arguments it shows whether the compiled runtime loaded a `.env` file from its working
// directory; with `throw` it fails, to show where stack traces point.
function fail(): never {
  throw new Error("probe failure");
}

if (process.argv[2] === "throw") fail();
console.log(JSON.stringify({ probe: process.env.GARUDA_DOTENV_PROBE ?? null }));
