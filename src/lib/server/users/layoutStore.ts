/**
 * Each user's named workspace layouts on the server (`workspace_layouts`): a name and the
 * /workspace link's query (panels, groups, day, moment), listed beside the ones a browser keeps in
 * IndexedDB. A user sees, saves and deletes only their own; a viewer may too (a layout is a way to
 * look, not a change to what the team shares). Bounded per user: MAX_LAYOUTS layouts of at most
 * MAX_QUERY characters, names of 1 to MAX_NAME characters; past a bound the save is refused with
 * a LayoutError that says which. That the query is a workspace is the route's to check (it reads
 * it as the page does).
 */
import type { Database } from '../db';

export const MAX_LAYOUTS = 50;
export const MAX_QUERY = 4096;
export const MAX_NAME = 80;

export interface ServerLayout {
	name: string;
	query: string;
	updatedAt: number;
}

/** A layout refused: `status` is the HTTP answer (400 malformed, 409 over the count). */
export class LayoutError extends Error {
	constructor(
		readonly status: 400 | 409,
		message: string
	) {
		super(message);
		this.name = 'LayoutError';
	}
}

interface LayoutRow {
	[k: string]: string | number | null;
	name: string;
	query: string;
	updated_at: number;
}

/** The name and query as saved, or a LayoutError naming what is wrong. */
export function checkLayout(name: unknown, query: unknown): { name: string; query: string } {
	if (typeof name !== 'string' || typeof query !== 'string') {
		throw new LayoutError(400, 'The body must be JSON: {"name": "...", "query": "p=...&g=..."}.');
	}
	const n = name.trim();
	if (n.length < 1 || n.length > MAX_NAME || [...n].some((c) => c.charCodeAt(0) < 32)) {
		throw new LayoutError(400, `A layout's name is 1 to ${MAX_NAME} characters.`);
	}
	if (query.length > MAX_QUERY) {
		throw new LayoutError(
			400,
			`A layout is at most ${MAX_QUERY} characters of link (this one has ${query.length}).`
		);
	}
	return { name: n, query };
}

export class LayoutStore {
	constructor(private readonly db: Database) {}

	async list(owner: string): Promise<ServerLayout[]> {
		const rows = await this.db.all<LayoutRow>(
			`SELECT name, query, updated_at FROM workspace_layouts WHERE owner = ? ORDER BY name`,
			[owner]
		);
		return rows.map((r) => ({ name: r.name, query: r.query, updatedAt: Number(r.updated_at) }));
	}

	/** Saves (or replaces, by name) one of `owner`'s layouts. */
	async save(
		owner: string,
		name: unknown,
		query: unknown,
		now = Date.now()
	): Promise<ServerLayout> {
		const layout = checkLayout(name, query);
		return this.db.transaction(async (tx) => {
			const same = await tx.get(`SELECT name FROM workspace_layouts WHERE owner = ? AND name = ?`, [
				owner,
				layout.name
			]);
			const count = await tx.get<{ n: number }>(
				`SELECT COUNT(*) AS n FROM workspace_layouts WHERE owner = ?`,
				[owner]
			);
			if (!same && Number(count?.n ?? 0) >= MAX_LAYOUTS) {
				throw new LayoutError(
					409,
					`You have ${MAX_LAYOUTS} layouts saved, the most kept per user: delete one first.`
				);
			}
			await tx.run(
				`INSERT INTO workspace_layouts (owner, name, query, updated_at) VALUES (?, ?, ?, ?)
				 ON CONFLICT (owner, name) DO UPDATE SET query = excluded.query, updated_at = excluded.updated_at`,
				[owner, layout.name, layout.query, now]
			);
			return { ...layout, updatedAt: now };
		});
	}

	/** Whether `owner` had a layout of that name (now deleted). */
	async remove(owner: string, name: string): Promise<boolean> {
		const n = await this.db.run(`DELETE FROM workspace_layouts WHERE owner = ? AND name = ?`, [
			owner,
			name.trim()
		]);
		return n > 0;
	}
}
