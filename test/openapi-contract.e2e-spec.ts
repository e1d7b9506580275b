/**
 * The check test/openapi.e2e-spec.ts runs live responses through catches what it must: a body,
 * a header or a status the document does not allow, and `nullable` read as OpenAPI 3.0.3
 * defines it (it widens the `type` beside it, nothing else).
 */
import { ResponseContract, type OpenApiDocument } from './support/openapi/response-contract';

const JSON_BODY = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });

const DOC: OpenApiDocument = {
  openapi: '3.0.0',
  paths: {
    '/item': {
      get: {
        responses: {
          '200': {
            description: '',
            headers: { 'RateLimit-Remaining': { schema: { type: 'integer', minimum: 0 } } },
            content: JSON_BODY({ $ref: '#/components/schemas/Item' }),
          },
          '204': { description: '' },
        },
      },
    },
  },
  components: {
    schemas: {
      Item: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          note: { type: 'string', nullable: true },
          // The form `override` had: nullable beside an allOf of a $ref.
          parent: { type: 'object', nullable: true, allOf: [{ $ref: '#/components/schemas/Ref' }] },
        },
        required: ['id'],
      },
      Ref: { type: 'object', properties: { id: { type: 'string' } } },
    },
  },
};

const contract = new ResponseContract(DOC);

function answer(body: unknown, headers: Record<string, string> = {}, status = 200) {
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'ratelimit-remaining': '3',
      ...headers,
    } as Record<string, string>,
    body,
    text: body === undefined ? '' : JSON.stringify(body),
  };
}

const problems = (res: ReturnType<typeof answer>) => contract.problems('get', '/item', res);

describe('ResponseContract', () => {
  it('accepts a response that conforms, null included where the type allows it', () => {
    expect(problems(answer({ id: 'a', note: null, parent: { id: 'b' } }))).toEqual([]);
    expect(problems(answer(undefined, {}, 204))).toEqual([]);
  });

  it('catches a body that breaks the schema, resolving $refs', () => {
    expect(problems(answer({ note: 'x' }))).toEqual(["body must have required property 'id'"]);
    expect(problems(answer({ id: 'a', parent: { id: 1 } }))).toEqual([
      'body/parent/id must be string',
    ]);
  });

  it('rejects null beside an allOf of a $ref, which the $ref does not admit', () => {
    expect(problems(answer({ id: 'a', parent: null }))).toEqual(['body/parent must be object']);
  });

  it('catches a documented header that is missing or does not match its schema', () => {
    const res = answer({ id: 'a' });
    const { 'ratelimit-remaining': _dropped, ...without } = res.headers;
    expect(problems({ ...res, headers: without })).toEqual([
      'header RateLimit-Remaining is documented but missing',
    ]);
    expect(problems(answer({ id: 'a' }, { 'ratelimit-remaining': 'many' }))).toEqual([
      'header RateLimit-Remaining: "many" is not a number',
    ]);
    expect(problems(answer({ id: 'a' }, { 'ratelimit-remaining': '-1' }))).toEqual([
      'header RateLimit-Remaining must be >= 0',
    ]);
  });

  it('catches an undocumented status, operation or body', () => {
    expect(problems(answer({ id: 'a' }, {}, 418))).toEqual(['GET /item: 418 is undocumented']);
    expect(contract.problems('post', '/item', answer({ id: 'a' }))).toEqual([
      'POST /item is not documented',
    ]);
    expect(problems(answer({ id: 'a' }, {}, 204))).toEqual([
      'a body where none is documented: {"id":"a"}',
    ]);
  });
});
