import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { DB_VERSION, MIGRATIONS, upgrade, type GexdeckDB } from './schema';

describe('the chains store migration', () => {
	it('adds the chains store to an older database and keeps what it held', async () => {
		const name = 'chains-upgrade';
		const before = MIGRATIONS.findIndex((m) => m.toString().includes('chains'));
		expect(before).toBeGreaterThanOrEqual(0);
		const old = await openDB<GexdeckDB>(name, before, {
			upgrade: (d, from, _new, tx) => {
				for (let v = from; v < before; v++) MIGRATIONS[v](d, tx);
			}
		});
		await old.put('snapshots', {
			route: 'SPX/classic/gex_full',
			data: 1,
			savedAt: 1,
			dataTimestamp: null
		});
		old.close();
		const db = await openDB<GexdeckDB>(name, DB_VERSION, {
			upgrade: (d, from, _new, tx) => upgrade(d, from, tx)
		});
		expect([...db.objectStoreNames]).toContain('chains');
		expect(await db.get('snapshots', 'SPX/classic/gex_full')).toMatchObject({ data: 1 });
		const text = 'Expiration Date,Calls\n'.repeat(1000);
		await db.put('chains', { id: 'current', name: 'quotedata.csv', text, savedAt: 2 });
		expect((await db.get('chains', 'current'))?.text).toBe(text);
		db.close();
	});

	it('is self-contained: running it on a database that has the store changes nothing', async () => {
		const db = await openDB<GexdeckDB>('chains-twice', DB_VERSION, {
			upgrade: (d, from, _new, tx) => {
				upgrade(d, from, tx);
				const again = MIGRATIONS.find((m) => m.toString().includes('chains'));
				expect(() => again?.(d, tx)).not.toThrow();
			}
		});
		expect([...db.objectStoreNames]).toContain('chains');
		db.close();
	});
});
