import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import document from '../../schema/openapi.json' with { type: 'json' };

/**
 * Checks real responses against schema/openapi.json: the body against the schema the document
 * gives for that operation and status, and the value of every header whose schema is a `const`.
 * Other documented headers (X-RateLimit-*, WWW-Authenticate, Retry-After) are not checked: tests
 * that need them assert them themselves.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
ajv.addSchema(document, 'openapi');

type Json = Record<string, unknown>;

function pointer(...segments: string[]): string {
  return segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
}

export function resolveRef(node: Json): Json {
  const ref = node.$ref;
  if (typeof ref !== 'string') return node;
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (value, key) => (value as Json)[key.replaceAll('~1', '/').replaceAll('~0', '~')],
      document,
    );
  return resolveRef(target as Json);
}

export type ResponseLike = { statusCode: number; body: string; headers: Record<string, unknown> };

/** Returns the list of mismatches: empty when the response is what the document promises. */
export function openApiMismatches(method: string, pathTemplate: string, response: ResponseLike): string[] {
  const operation = (document.paths as unknown as Record<string, Record<string, Json>>)[pathTemplate]?.[
    method.toLowerCase()
  ];
  if (operation === undefined) return [`the document has no ${method} ${pathTemplate}`];
  const responses = operation.responses as Record<string, Json>;
  const documented = responses[String(response.statusCode)];
  if (documented === undefined)
    return [`status ${response.statusCode} is not documented for ${method} ${pathTemplate}`];
  const resolved = resolveRef(documented);
  const problems: string[] = [];
  const contentType = String(response.headers['content-type'] ?? '');
  if (!contentType.startsWith('application/json')) problems.push(`content-type is ${contentType}`);
  const refToSchema =
    (documented.$ref as string | undefined) ??
    `#/${pointer('paths', pathTemplate, method.toLowerCase(), 'responses', String(response.statusCode))}`;
  const validate = ajv.getSchema(`openapi${refToSchema}/content/application~1json/schema`);
  if (validate === undefined) return [...problems, `no schema at ${refToSchema}`];
  if (!validate(JSON.parse(response.body))) problems.push(ajv.errorsText(validate.errors));
  for (const [name, header] of Object.entries((resolved.headers ?? {}) as Record<string, Json>)) {
    const schema = resolveRef((resolveRef(header).schema ?? {}) as Json);
    if ('const' in schema && response.headers[name.toLowerCase()] !== schema.const) {
      problems.push(
        `header ${name} is ${String(response.headers[name.toLowerCase()])}, not ${String(schema.const)}`,
      );
    }
  }
  return problems;
}

/** How `value` departs from one of the document's schemas (a server-sent event's data, say): empty when it does not. */
export function schemaMismatches(schema: string, value: unknown): string[] {
  const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`);
  if (validate === undefined) return [`the document has no schema ${schema}`];
  return validate(value) ? [] : [ajv.errorsText(validate.errors)];
}

export { document as openApiDocument };
