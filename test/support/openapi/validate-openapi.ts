import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

/** What @seriousme/openapi-schema-validator answers: `errors` is a list, or one message. */
export interface OpenApiValidation {
  valid: boolean;
  errors?: unknown[] | string;
}

// The validator is ESM only and reads its JSON schemas through import.meta, which Jest's
// CommonJS transform cannot give it: it runs in a plain Node process of its own.
const SCRIPT = `
import { Validator } from '@seriousme/openapi-schema-validator';
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const result = await new Validator().validate(JSON.parse(Buffer.concat(chunks).toString()));
process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors }));
`;

/** The repository root: the validator is resolved from its node_modules. */
const ROOT = resolve(__dirname, '../../..');

/** Validates an OpenAPI 3.x document against the specification's JSON schema. */
export function validateOpenApi(document: object): Promise<OpenApiValidation> {
  return new Promise((done, fail) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '--eval', SCRIPT],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) fail(new Error(`the OpenAPI validator failed: ${stderr || error.message}`));
        else done(JSON.parse(stdout) as OpenApiValidation);
      },
    );
    child.stdin!.end(JSON.stringify(document));
  });
}

/** How many problems a validation reports (a lone message is one). */
export const problemCount = ({ errors }: OpenApiValidation): number =>
  errors === undefined ? 0 : typeof errors === 'string' ? 1 : errors.length;
