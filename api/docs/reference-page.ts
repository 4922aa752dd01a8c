// The API reference page, rendered on the server from the OpenAPI document itself: a list of the
// endpoints at the top, each linking to its operation's section (anchored at its operationId).
import { escapeHtml, inlineCode } from '../../web/html';
import { docsPage } from './docs-pages';

type Schema = { [key: string]: unknown };

function typeOf(schema: Schema): string {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop() as string;
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(typeOf).join(' or ');
  if (schema.const !== undefined) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map((v) => `<code>${escapeHtml(v)}</code>`).join(' | ');
  if (schema.type === 'array' && schema.items) return `array of ${typeOf(schema.items as Schema)}`;
  return escapeHtml(Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any'));
}

function rules(schema: Schema): string {
  const out: string[] = [];
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'format', 'default']) {
    if (schema[key] !== undefined) out.push(`${key} ${JSON.stringify(schema[key])}`);
  }
  if (typeof schema.description === 'string') out.push(schema.description);
  return inlineCode(out.join('; '));
}

function propertiesTable(schema: Schema): string {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties) return `<p>${typeOf(schema)}</p>`;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rows = Object.entries(properties)
    .map(([name, s]) => `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? ' (required)' : ''}</td><td>${typeOf(s)}</td><td>${rules(s)}</td></tr>`)
    .join('\n');
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Rules</th></tr></thead><tbody>${rows}</tbody></table>`;
}

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  'x-key-kinds'?: string[];
  'x-permission'?: string;
  'x-idempotent'?: boolean;
  parameters: { name: string; in: string; required: boolean; description?: string; schema: Schema }[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { description: string; content?: { 'application/json': { schema: Schema } } }>;
}

interface Document {
  info: { title: string; description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

function permissionNote(permission: string | undefined): string {
  if (permission === undefined) return '';
  return permission === 'all' ? '; every permission (a key that is not restricted)' : `; permission <code>${escapeHtml(permission)}</code>`;
}

export function referencePage(doc: Document): string {
  const entries = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  const index = entries
    .map(({ path, method, op }) => `<li><a href="#${escapeHtml(op.operationId)}"><code>${method.toUpperCase()} ${escapeHtml(path)}</code></a>: ${escapeHtml(op.summary)}</li>`)
    .join('\n');
  const operations = entries.map(({ path, method, op }) => {
      const auth = op['x-key-kinds'] ? `Keys: ${op['x-key-kinds'].join(', ')}${permissionNote(op['x-permission'])}` : 'No key needed';
      const params = op.parameters.length
        ? `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Rules</th></tr></thead><tbody>${op.parameters
            .map((p) => `<tr><td><code>${escapeHtml(p.name)}</code>${p.required ? ' (required)' : ''}</td><td>${p.in}</td><td>${typeOf(p.schema)}</td><td>${rules({ ...p.schema, description: p.description })}</td></tr>`)
            .join('')}</tbody></table>`
        : '';
      const body = op.requestBody ? `<h4>Body</h4>${propertiesTable(op.requestBody.content['application/json'].schema)}` : '';
      const responses = Object.entries(op.responses)
        .map(([status, r]) => `<tr><td>${status}</td><td>${r.content ? typeOf(r.content['application/json'].schema) : ''}</td><td>${inlineCode(r.description)}</td></tr>`)
        .join('');
      return `<section id="${escapeHtml(op.operationId)}"><h3><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h3>
<p>${escapeHtml(op.summary)}${op.description ? `. ${inlineCode(op.description)}` : ''}</p>
<p>${auth}${op['x-idempotent'] ? '; requires an <code>Idempotency-Key</code>' : ''}.</p>
${params}${body}<h4>Responses</h4><table><thead><tr><th>Status</th><th>Body</th><th>When</th></tr></thead><tbody>${responses}</tbody></table></section>`;
  });
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, s]) => `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${propertiesTable(s)}</section>`)
    .join('\n');
  return docsPage(
    'API reference',
    `<h1>${escapeHtml(doc.info.title)}</h1><p>${inlineCode(doc.info.description)}</p>
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a>. Errors: <a href="/docs/errors">every code and reason</a>.</p>
<h2 id="endpoints">Endpoints</h2>
<ul class="endpoints">
${index}
</ul>
${operations.join('\n')}<h2 id="objects">Objects</h2>${schemas}`,
  );
}
