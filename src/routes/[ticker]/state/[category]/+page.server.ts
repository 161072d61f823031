import { knownRefusals } from '../../../streamAccess.server';
import type { PageServerLoad } from './$types';

/**
 * The State route the view polls, if the proxy would refuse it for this account (locked, no key):
 * the page then shows the refusal without asking. Its majors and max change share its package.
 */
export const load = (async ({ params }) => ({
	refusals: await knownRefusals([`${params.ticker.toUpperCase()}/state/${params.category}`])
})) satisfies PageServerLoad;
