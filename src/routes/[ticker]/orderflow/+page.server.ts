import { knownRefusals } from '../../streamAccess.server';
import type { PageServerLoad } from './$types';

/** The Orderflow route, if the proxy would refuse it for this account (locked, no key). */
export const load = (async ({ params }) => ({
	refusals: await knownRefusals([`${params.ticker.toUpperCase()}/orderflow/orderflow`])
})) satisfies PageServerLoad;
