/**
 * One fetch path to the dashboard's /api proxy from the browser: src/lib/cache/routeFetch.ts
 * (`fetchRoute`), which reads the proxy's refusal reason, what a locked route `requires` and a
 * 429's `Retry-After`. A page or component that fetches `/api/...` by hand loses all three, so
 * `fetch('/api...')` (a string or a template literal starting with /api) fails lint anywhere
 * else under src/. Reported on fetch() calls only: a URL built elsewhere and passed in is the
 * reviewer's to see.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The one module that may fetch /api. */
export const API_FETCH_MODULE = 'src/lib/cache/routeFetch.ts';

/** The leading text of a string or template literal, or undefined for anything else. */
function leadingText(node) {
	if (!node) return undefined;
	if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
	if (node.type === 'TemplateLiteral') return node.quasis[0]?.value.cooked ?? undefined;
	return undefined;
}

/** Does this URL text name the /api proxy (`/api`, `/api/...`, `/api?...`)? */
export function isApiPath(text) {
	return /^\/api(?:[/?#]|$)/.test(text);
}

const rule = {
	meta: {
		type: 'problem',
		docs: { description: 'Fetch /api only through src/lib/cache/routeFetch.ts' },
		schema: [],
		messages: {
			raw: "fetch('{{url}}') by hand loses the proxy's refusal reason, `requires` and Retry-After: use fetchRoute from $lib/cache/routeFetch."
		}
	},
	create(context) {
		const file = path.relative(ROOT, context.physicalFilename).split(path.sep).join('/');
		if (file === API_FETCH_MODULE) return {};
		return {
			CallExpression(node) {
				const callee = node.callee;
				const name =
					callee.type === 'Identifier'
						? callee.name
						: callee.type === 'MemberExpression' && !callee.computed
							? callee.property.name
							: undefined;
				// fetch(...), window.fetch(...), globalThis.fetch(...)
				if (name !== 'fetch') return;
				if (callee.type === 'MemberExpression' && callee.object.type !== 'Identifier') return;
				const text = leadingText(node.arguments[0]);
				if (text !== undefined && isApiPath(text))
					context.report({ node: node.arguments[0], messageId: 'raw', data: { url: text } });
			}
		};
	}
};

export default { meta: { name: 'gexdeck-api-fetch' }, rules: { 'no-raw-api-fetch': rule } };
