/**
 * Waiting in a test for something another process or socket makes true: polls `cond` until it
 * holds, or fails after `ms` naming `what` it waited for (so a hang reads as a reason, not as
 * the test runner's own timeout).
 */
export async function until(
	cond: () => boolean,
	ms: number,
	what: string,
	everyMs = 25
): Promise<void> {
	const deadline = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, everyMs));
	}
}
