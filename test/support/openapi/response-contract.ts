import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Schema = Record<string, unknown>;

export interface DocumentedResponse {
  description: string;
  headers?: Record<string, { schema?: Schema }>;
  content?: Record<string, { schema?: Schema }>;
}

export interface OpenApiOperation {
  responses: Record<string, DocumentedResponse>;
  [field: string]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
}

/** What supertest gives of a response. */
export interface LiveResponse {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
  text?: string;
}

/** Where the components' schemas live for Ajv (any absolute URI would do). */
const BASE = 'https://openapi.invalid/components/schemas/';
/** Keys whose values are data, not schemas. */
const DATA = new Set(['example', 'examples', 'default', 'enum', 'const']);
/** Keys whose values map names (which may be any word, `default` included) to schemas. */
const BY_NAME = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/**
 * Checks live responses against what an OpenAPI 3.0 or 3.1 document declares for their status:
 * the body against its JSON schema (`$ref`s resolved against the components), the absence of a
 * body where none is declared, and every declared header against its schema.
 */
export class ResponseContract {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<object, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    const options = { allErrors: true, strictTypes: false, logger: false } as const;
    this.ajv = doc.openapi.startsWith('3.0') ? new Ajv(options) : new Ajv2020(options);
    addFormats(this.ajv);
    // OpenAPI's own annotations, unknown to JSON Schema (strict mode rejects unknown keywords).
    this.ajv.addVocabulary(['example', 'xml', 'externalDocs']);
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      this.ajv.addSchema(this.toJsonSchema(schema), BASE + name);
    }
  }

  /** Everything in `response` the document does not allow; empty when it conforms. */
  problems(method: string, path: string, response: LiveResponse): string[] {
    const operation = this.doc.paths[path]?.[method.toLowerCase()];
    if (!operation) return [`${method.toUpperCase()} ${path} is not documented`];
    const documented = operation.responses[String(response.status)];
    if (!documented) return [`${method.toUpperCase()} ${path}: ${response.status} is undocumented`];
    return [
      ...this.bodyProblems(documented, response),
      ...this.headerProblems(documented, response),
    ];
  }

  private bodyProblems(documented: DocumentedResponse, response: LiveResponse): string[] {
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) {
      return response.text ? [`a body where none is documented: ${response.text}`] : [];
    }
    if (!/json/.test(String(response.headers['content-type']))) {
      return [`a JSON body is documented, got ${String(response.headers['content-type'])}`];
    }
    return this.check(schema, response.body, 'body');
  }

  private headerProblems(documented: DocumentedResponse, response: LiveResponse): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const raw = response.headers[name.toLowerCase()];
      if (typeof raw !== 'string') {
        problems.push(`header ${name} is documented but missing`);
        continue;
      }
      const schema = header.schema ?? {};
      const numeric = schema.type === 'integer' || schema.type === 'number';
      if (numeric && !/^-?\d+(\.\d+)?$/.test(raw)) {
        problems.push(`header ${name}: ${JSON.stringify(raw)} is not a number`);
        continue;
      }
      problems.push(...this.check(schema, numeric ? Number(raw) : raw, `header ${name}`));
    }
    return problems;
  }

  private check(schema: Schema, value: unknown, what: string): string[] {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(this.toJsonSchema(schema));
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${what}${e.instancePath} ${e.message}`);
  }

  /**
   * A JSON Schema Ajv can use: `$ref`s to components made absolute and, for OpenAPI 3.0, each
   * `nullable: true` turned into `null` added to the `type` beside it, as OpenAPI 3.0.3 defines
   * it (it adds nothing elsewhere: an `allOf` or `$ref` beside it still has to match).
   */
  private toJsonSchema(node: unknown): Schema {
    const openapi30 = this.doc.openapi.startsWith('3.0');
    const convert = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(convert);
      if (value === null || typeof value !== 'object') return value;
      const out: Schema = {};
      for (const [key, child] of Object.entries(value)) {
        if (DATA.has(key)) out[key] = child;
        else if (BY_NAME.has(key) && child && typeof child === 'object') {
          out[key] = Object.fromEntries(
            Object.entries(child).map(([name, sub]) => [name, convert(sub)]),
          );
        } else out[key] = convert(child);
      }
      if (typeof out.$ref === 'string') {
        out.$ref = out.$ref.replace('#/components/schemas/', BASE);
      }
      if (openapi30 && 'nullable' in out) {
        if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
        delete out.nullable;
      }
      return out;
    };
    return convert(node) as Schema;
  }
}
