/**
 * A tiny runtime validator: schemas are plain closures (no eval, no `new Function`), so a
 * strict Content-Security-Policy keeps working in the browser. Each schema returns the typed
 * value or the JSON path and reason of the first mismatch, e.g. `$.strikes[3][1]: expected a
 * finite number, got string`.
 */

export type Check<T> = { ok: true; value: T } | { ok: false; path: string; message: string };

export interface Schema<T> {
	readonly describe: string;
	check(value: unknown, path: string): Check<T>;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

export class SchemaError extends Error {
	constructor(
		readonly path: string,
		readonly reason: string
	) {
		super(`${path}: ${reason}`);
		this.name = 'SchemaError';
	}
}

/** Validates `value`; returns the typed value or throws a SchemaError naming the path. */
export function parseWith<T>(schema: Schema<T>, value: unknown): T {
	const r = schema.check(value, '$');
	if (!r.ok) throw new SchemaError(r.path, r.message);
	return r.value;
}

/** Validates without throwing. */
export function safeParse<T>(schema: Schema<T>, value: unknown): Check<T> {
	return schema.check(value, '$');
}

function kindOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
	return typeof value;
}

function fail<T>(path: string, expected: string, value: unknown): Check<T> {
	return { ok: false, path, message: `expected ${expected}, got ${kindOf(value)}` };
}

function schema<T>(describe: string, check: (value: unknown, path: string) => Check<T>): Schema<T> {
	return { describe, check };
}

export const num: Schema<number> = schema('a finite number', (v, p) =>
	typeof v === 'number' && Number.isFinite(v)
		? { ok: true, value: v }
		: fail(p, 'a finite number', v)
);

export const int: Schema<number> = schema('an integer', (v, p) =>
	typeof v === 'number' && Number.isSafeInteger(v)
		? { ok: true, value: v }
		: fail(p, 'an integer', v)
);

export const str: Schema<string> = schema('a string', (v, p) =>
	typeof v === 'string' ? { ok: true, value: v } : fail(p, 'a string', v)
);

export const bool: Schema<boolean> = schema('a boolean', (v, p) =>
	typeof v === 'boolean' ? { ok: true, value: v } : fail(p, 'a boolean', v)
);

/** A string matching `re` (described as `what` in errors). */
export function pattern(re: RegExp, what: string): Schema<string> {
	return schema(what, (v, p) =>
		typeof v === 'string' && re.test(v)
			? { ok: true, value: v }
			: fail(p, what, typeof v === 'string' ? `'${v}'` : v)
	);
}

/** A string satisfying a predicate (e.g. a real calendar date). */
export function refine<T>(base: Schema<T>, ok: (v: T) => boolean, what: string): Schema<T> {
	return schema(what, (v, p) => {
		const r = base.check(v, p);
		if (!r.ok) return r;
		return ok(r.value) ? r : { ok: false, path: p, message: `expected ${what}` };
	});
}

export function oneOf<const T extends readonly (string | number | boolean)[]>(
	values: T
): Schema<T[number]> {
	const what = `one of ${values.join(', ')}`;
	return schema(what, (v, p) =>
		(values as readonly unknown[]).includes(v)
			? { ok: true, value: v as T[number] }
			: fail(p, what, v)
	);
}

export function literal<const T extends string | number | boolean>(value: T): Schema<T> {
	return oneOf([value] as const) as Schema<T>;
}

export function nullable<T>(inner: Schema<T>): Schema<T | null> {
	return schema<T | null>(`${inner.describe} or null`, (v, p) =>
		v === null ? { ok: true, value: null } : inner.check(v, p)
	);
}

export interface ArrayOptions {
	min?: number;
	max?: number;
}

export function array<T>(item: Schema<T>, opts: ArrayOptions = {}): Schema<T[]> {
	return schema(`array of ${item.describe}`, (v, p) => {
		if (!Array.isArray(v)) return fail(p, 'an array', v);
		if (opts.min !== undefined && v.length < opts.min) {
			return {
				ok: false,
				path: p,
				message: `expected at least ${opts.min} items, got ${v.length}`
			};
		}
		if (opts.max !== undefined && v.length > opts.max) {
			return { ok: false, path: p, message: `expected at most ${opts.max} items, got ${v.length}` };
		}
		const out: T[] = new Array(v.length);
		for (let i = 0; i < v.length; i++) {
			const r = item.check(v[i], `${p}[${i}]`);
			if (!r.ok) return r;
			out[i] = r.value;
		}
		return { ok: true, value: out };
	});
}

type TupleOf<S extends readonly Schema<unknown>[]> = { -readonly [K in keyof S]: Infer<S[K]> };

export function tuple<const S extends readonly Schema<unknown>[]>(items: S): Schema<TupleOf<S>> {
	return schema(`tuple of ${items.length}`, (v, p) => {
		if (!Array.isArray(v)) return fail(p, `an array of ${items.length}`, v);
		if (v.length !== items.length) {
			return { ok: false, path: p, message: `expected ${items.length} items, got ${v.length}` };
		}
		const out: unknown[] = [];
		for (let i = 0; i < items.length; i++) {
			const r = items[i].check(v[i], `${p}[${i}]`);
			if (!r.ok) return r as Check<TupleOf<S>>;
			out.push(r.value);
		}
		return { ok: true, value: out as TupleOf<S> };
	});
}

const OPTIONAL = Symbol('optional');
export interface OptionalSchema<T> extends Schema<T | undefined> {
	readonly [OPTIONAL]: true;
}

/** Marks an object member as optional (absent or undefined). */
export function optional<T>(inner: Schema<T>): OptionalSchema<T> {
	return {
		[OPTIONAL]: true,
		describe: `optional ${inner.describe}`,
		check: (v, p) => (v === undefined ? { ok: true, value: undefined } : inner.check(v, p))
	};
}

type Shape = Record<string, Schema<unknown>>;
type RequiredKeys<S extends Shape> = {
	[K in keyof S]: S[K] extends OptionalSchema<unknown> ? never : K;
}[keyof S];
type OptionalKeys<S extends Shape> = Exclude<keyof S, RequiredKeys<S>>;
export type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & {
	[K in OptionalKeys<S>]?: Infer<S[K]>;
};

export interface ObjectOptions {
	/** Refuse members the shape does not name (default: allow and drop them). */
	strict?: boolean;
}

function memberPath(p: string, k: string): string {
	return /^[A-Za-z_$][\w$]*$/.test(k) ? `${p}.${k}` : `${p}[${JSON.stringify(k)}]`;
}

/**
 * An object with the given members. Unknown members are dropped (upstream may add fields; the
 * returned value has exactly the documented ones) unless `strict`.
 */
export function object<S extends Shape>(shape: S, opts: ObjectOptions = {}): Schema<ObjectOf<S>> {
	const keys = Object.keys(shape);
	return schema('an object', (v, p) => {
		if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(p, 'an object', v);
		const rec = v as Record<string, unknown>;
		const out: Record<string, unknown> = {};
		for (const k of keys) {
			const present = Object.hasOwn(rec, k);
			const s = shape[k];
			if (!present && !(OPTIONAL in s))
				return { ok: false, path: memberPath(p, k), message: 'missing' };
			const r = s.check(present ? rec[k] : undefined, memberPath(p, k));
			if (!r.ok) return r;
			if (r.value !== undefined) out[k] = r.value;
		}
		if (opts.strict) {
			for (const k of Object.keys(rec)) {
				if (!Object.hasOwn(shape, k))
					return { ok: false, path: memberPath(p, k), message: 'unexpected member' };
			}
		}
		return { ok: true, value: out as ObjectOf<S> };
	});
}

/** An object whose every member (key accepted by `keyOk`) satisfies `value`. */
export function record<T>(
	value: Schema<T>,
	keyOk: (k: string) => boolean = () => true,
	keyWhat = 'key'
): Schema<Record<string, T>> {
	return schema(`object of ${value.describe}`, (v, p) => {
		if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(p, 'an object', v);
		const out: Record<string, T> = {};
		for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
			if (!keyOk(k)) return { ok: false, path: memberPath(p, k), message: `unexpected ${keyWhat}` };
			const r = value.check(item, memberPath(p, k));
			if (!r.ok) return r;
			out[k] = r.value;
		}
		return { ok: true, value: out };
	});
}

/** The first schema that accepts the value; the error of the last when none does. */
export function union<T extends readonly Schema<unknown>[]>(
	...options: T
): Schema<Infer<T[number]>> {
	return schema(options.map((o) => o.describe).join(' | '), (v, p) => {
		let last: Check<unknown> = { ok: false, path: p, message: 'no schema' };
		for (const o of options) {
			last = o.check(v, p);
			if (last.ok) return last as Check<Infer<T[number]>>;
		}
		return last as Check<Infer<T[number]>>;
	});
}
