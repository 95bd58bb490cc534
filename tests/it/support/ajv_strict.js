// Test helper for tests/it/contract/strict_schemas.rs: compiles every tool's inputSchema and outputSchema
// with ajv in strict mode (strictTypes, strictRequired, strictTuples: what the TypeScript SDK's
// documented `new Ajv({strict: true})` applies), then validates the sample answers against the
// output schema of their tool. Reads {"tools": [...], "samples": [{"tool", "valid", "value"}]}
// on stdin; prints one line per failure; exits 1 when anything failed. ajv is found through
// NODE_PATH.
const Ajv = require('ajv');
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const strict = () => new Ajv({
  strict: true, strictTypes: true, strictRequired: true, strictTuples: true, allErrors: true,
});
let failures = 0;
const validators = {};
for (const tool of input.tools) {
  for (const key of ['inputSchema', 'outputSchema']) {
    try {
      const validate = strict().compile(tool[key]);
      if (key === 'outputSchema') validators[tool.name] = validate;
    } catch (e) {
      failures++;
      console.log(`${tool.name} ${key} does not compile: ${e.message}`);
    }
  }
}
for (const [i, sample] of (input.samples || []).entries()) {
  const validate = validators[sample.tool];
  if (!validate) continue;
  const valid = validate(sample.value);
  if (valid !== sample.valid) {
    failures++;
    console.log(`sample ${i} (${sample.tool}) is ${valid ? 'valid' : 'invalid'}, expected otherwise: ${JSON.stringify(validate.errors)}`);
  }
}
console.log(`ajv ${require('ajv/package.json').version}: ${input.tools.length} tools, ${(input.samples || []).length} samples, ${failures} failures`);
process.exit(failures ? 1 : 0);
