/**
 * Which contracts a research request reads: its expiration filter (dates, `weekly`, `monthly`,
 * `0dte`, `all`), its moneyness band and its strikes-per-expiry limit, applied to the chain's
 * contract records.
 */
import type { ResearchQuery } from '../../../lib/contract/research';
import { HttpError } from '../respond';
import type { ChainRecords, ContractRecord } from './contracts';

const ATM_BAND = 0.01;
const NTM_BAND = 0.05;
const MONTHLY_RE = /^\d{4}-\d{2}-(1[5-9]|2[01])$/;

function isMonthly(expiry: string): boolean {
	// Standard monthlies expire on the third Friday: day 15-21 and a Friday.
	return MONTHLY_RE.test(expiry) && new Date(`${expiry}T12:00:00Z`).getUTCDay() === 5;
}

/** Parses `expiration_filter`: comma-separated dates and/or `weekly`, `monthly`, `0dte`, `all`. */
function expiryPredicate(filter: string | undefined): (rec: ContractRecord) => boolean {
	if (!filter) return () => true;
	const tests: ((rec: ContractRecord) => boolean)[] = [];
	for (const token of filter
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean)) {
		if (/^\d{4}-\d{2}-\d{2}$/.test(token)) tests.push((rec) => rec.expiry === token);
		else if (token === 'all') tests.push(() => true);
		else if (token === 'monthly') tests.push((rec) => isMonthly(rec.expiry));
		else if (token === 'weekly') tests.push((rec) => !isMonthly(rec.expiry));
		else if (token === '0dte') tests.push((rec) => rec.dte === 0);
		else {
			throw new HttpError(
				400,
				`Invalid expiration_filter '${token}': expected YYYY-MM-DD dates or weekly, monthly, 0dte, all.`
			);
		}
	}
	return (rec) => tests.some((t) => t(rec));
}

function moneynessPredicate(
	filter: ResearchQuery['moneyness_filter'],
	spot: number
): (rec: ContractRecord) => boolean {
	if (!filter) return () => true;
	return (rec) => {
		const m = rec.strike / spot - 1;
		const itm = rec.isCall ? rec.strike < spot : rec.strike > spot;
		switch (filter) {
			case 'atm':
				return Math.abs(m) <= ATM_BAND;
			case 'ntm':
				return Math.abs(m) <= NTM_BAND;
			case 'itm':
				return itm && Math.abs(m) > ATM_BAND;
			case 'otm':
				return !itm && Math.abs(m) > ATM_BAND;
		}
	};
}

/** The contracts the query selects, before the metric is computed. */
export function selectContracts(data: ChainRecords, query: ResearchQuery): ContractRecord[] {
	const spot = data.chain.spot;
	if (
		query.start_dte !== undefined &&
		query.end_dte !== undefined &&
		query.start_dte > query.end_dte
	) {
		throw new HttpError(400, 'start_dte must not be greater than end_dte.');
	}
	if (query.strikes !== undefined && !(Number.isInteger(query.strikes) && query.strikes > 0)) {
		throw new HttpError(
			400,
			'strikes must be a positive integer (strikes around spot per expiry).'
		);
	}
	const byExpiry = expiryPredicate(query.expiration_filter);
	const byMoneyness = moneynessPredicate(query.moneyness_filter, spot);
	const side = query.contract_filter ?? 'all';
	let selected = data.records.filter(
		(rec) =>
			(query.start_dte === undefined || rec.dte >= query.start_dte) &&
			(query.end_dte === undefined || rec.dte <= query.end_dte) &&
			(side === 'all' || (side === 'calls') === rec.isCall) &&
			byExpiry(rec) &&
			byMoneyness(rec)
	);
	if (query.strikes !== undefined) {
		// Keep the N strikes nearest spot of every expiry.
		const keep = new Set<string>();
		const strikesByExpiry = new Map<string, number[]>();
		for (const rec of selected) {
			const list = strikesByExpiry.get(rec.expiry) ?? [];
			if (!list.includes(rec.strike)) list.push(rec.strike);
			strikesByExpiry.set(rec.expiry, list);
		}
		for (const [expiry, list] of strikesByExpiry) {
			list.sort((a, b) => Math.abs(a - spot) - Math.abs(b - spot) || a - b);
			for (const k of list.slice(0, query.strikes)) keep.add(`${expiry}|${k}`);
		}
		selected = selected.filter((rec) => keep.has(`${rec.expiry}|${rec.strike}`));
	}
	return selected;
}
