// tap.mjs: the TAP lines every MCP test prints, shared so that the eight
// tests print and count them alike (imported as './tap.mjs').

let n = 0;
let failed = 0;

// One check: "ok N - what", or "not ok N - what" and the detail on a
// comment line (cut at 2,000 characters).
export function ok(cond, what, detail) {
  n++;
  if (cond) {
    console.log(`ok ${n} - ${what}`);
  } else {
    failed++;
    console.log(`not ok ${n} - ${what}`);
    if (detail !== undefined)
      console.log(`  # ${JSON.stringify(detail).slice(0, 2000)}`);
  }
}

// A check that cannot run here, with why: "ok N # SKIP why".
export function skip(why) {
  n++;
  console.log(`ok ${n} # SKIP ${why}`);
}

// How many checks have run, and how many of them failed.
export const planned = () => n;
export const failures = () => failed;
