/**
 * "Token used from a new address" (issue 29's audit log): the first use of an integration token
 * from an address it was never used from is audited once, with the address and the token's name
 * and id, never its text. The pairs live in `token_addresses`, so the entry is written once per
 * token and address across restarts and replicas (the insert that adds the row audits it);
 * this process remembers the pairs it has seen, so a known pair costs no query.
 */
import type { Database } from '../db/index';
import { audit } from '../users/audit';

/** Pairs remembered at most (past it the oldest are forgotten: the table still answers). */
const REMEMBERED = 10_000;

export class TokenAddresses {
	private readonly seen = new Set<string>();

	constructor(
		private readonly db: Database,
		private readonly now: () => number = Date.now
	) {}

	/** Note a use of token `id` (named `name`) from `address`; audits a pair new to the table. */
	async note(
		token: { id: string; name: string; ownerName: string },
		address: string | undefined
	): Promise<void> {
		if (!address) return;
		const key = `${token.id} ${address}`;
		if (this.seen.has(key)) return;
		const added = await this.db.run(
			`INSERT INTO token_addresses (token_id, address, first_at) VALUES (?, ?, ?)
			 ON CONFLICT (token_id, address) DO NOTHING`,
			[token.id, address, this.now()]
		);
		if (this.seen.size >= REMEMBERED) this.seen.delete(this.seen.values().next().value!);
		this.seen.add(key);
		if (added === 0) return;
		await audit(this.db, {
			actor: `token ${token.name}`.slice(0, 64),
			address,
			action: 'token used from a new address',
			detail: `token "${token.name}" (${token.id}) of ${token.ownerName} first used from ${address}`
		});
	}

	/** A revoked token's pairs are forgotten here (its rows go in the revoking transaction). */
	forgetSeen(tokenId: string): void {
		for (const key of this.seen) if (key.startsWith(`${tokenId} `)) this.seen.delete(key);
	}
}
