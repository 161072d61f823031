import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { demoAccountsFor } from '../../src/service/accounts/demo';
import { useDemoAccount } from './demoAccount';

/** The embedded service's demo keys are its data folder's own (read from the same seed file). */
const demo = () => demoAccountsFor(join(process.env.GEXDECK_E2E_DATA_DIR ?? 'data/e2e', 'service'));
const ALL_KEYS = demo().accounts.flatMap((a) => a.keys.map((k) => k.key));

test('a Classic-level key sees locked features as locked, not as errors', async ({ page }) => {
	try {
		await useDemoAccount(page, 'demo-classic');
		await expect(page.getByTestId('level')).toContainText('classic');
		// The entitlements read as a table, every field in words (no raw JSON, no `null`).
		const entitlement = (name: string) =>
			page.locator(`[data-testid="entitlements"] [data-entitlement="${name}"] td`);
		await expect(entitlement('gexbot')).toHaveText(['gexbot', 'classic', 'none', '–']);
		await expect(entitlement('research')).toHaveText(['research', 'none', 'none', 'not active']);
		await expect(page.getByTestId('whoami')).not.toContainText(/[{}"]|null/);
		const feature = (route: string) => page.locator(`[data-feature="${route}"]`);
		await expect(feature('classicChain')).toHaveAttribute('data-available', 'true');
		for (const locked of ['stateSnapshot', 'orderflow', 'history', 'research']) {
			await expect(feature(locked)).toHaveAttribute('data-available', 'false');
			await expect(feature(locked)).toContainText('Locked');
		}
		await page.screenshot({ path: 'test-results/account-classic.png', fullPage: true });

		// The proxy refuses the State route itself, with the reason, before any upstream call.
		const res = await page.request.get('/api/SPX/state/gex_full');
		expect(res.status()).toBe(403);
		expect(await res.json()).toMatchObject({ reason: 'locked', requires: 'State package' });

		// The Classic view still works for this subscriber.
		await page.goto('/SPX/classic/gex_full');
		await expect(page.locator('rect.bar').first()).toBeVisible();
	} finally {
		await useDemoAccount(page, 'demo-research');
	}
});

test('no API key appears in any response or in the browser bundle', async ({ page }) => {
	const bodies: string[] = [];
	page.on('response', async (r) => {
		try {
			bodies.push((await r.body()).toString('utf8'));
		} catch {
			// Redirects have no body.
		}
	});
	for (const path of ['/', '/SPX/classic/gex_zero', '/levels/SPX?fut=1', '/account']) {
		await page.goto(path);
		await page.waitForLoadState('networkidle').catch(() => {});
	}
	await page.waitForTimeout(1500);
	expect(bodies.length).toBeGreaterThan(10);
	for (const key of ALL_KEYS) {
		for (const body of bodies) expect(body.includes(key)).toBe(false);
	}
	// The masked id is what the browser sees.
	await expect(page.getByTestId('masked-key')).toContainText('…');

	const files: string[] = [];
	const walk = (dir: string) => {
		for (const f of readdirSync(dir)) {
			const p = join(dir, f);
			if (statSync(p).isDirectory()) walk(p);
			else files.push(p);
		}
	};
	walk('build/client');
	expect(files.length).toBeGreaterThan(5);
	for (const file of files) {
		const text = readFileSync(file, 'latin1');
		for (const key of ALL_KEYS) expect(text.includes(key), file).toBe(false);
	}
});

test('the proxy refuses off-list paths and bad parameters', async ({ request }) => {
	const offList = ['/api/etc/passwd', '/api/admin', '/api/http:%2F%2Fevil.example%2Fv2/whoami'];
	for (const path of offList) {
		const res = await request.get(path);
		expect(res.status(), path).toBe(404);
		expect((await res.json()).reason).toBe('off-list');
	}
	const invalid = await request.get('/api/SPX/classic/gex_full?url=http://evil.example');
	expect(invalid.status()).toBe(400);
	const badTicker = await request.get('/api/EVIL/classic/gex_full');
	expect(badTicker.status()).toBe(400);
	// State-changing requests need this origin and the CSRF token.
	const post = await request.post('/api/negotiate', { data: { groups: ['SPX_classic_gex_full'] } });
	expect(post.status()).toBe(403);
	// Security headers on every answer.
	const ok = await request.get('/api/tickers');
	expect(ok.status()).toBe(200);
	expect(ok.headers()['x-content-type-options']).toBe('nosniff');
	expect(ok.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
	const pageRes = await request.get('/SPX/classic/gex_full');
	const csp = pageRes.headers()['content-security-policy'];
	expect(csp).toContain("frame-ancestors 'none'");
	expect(csp).not.toContain('unsafe-eval');
});

test('keys entered on the Account page are verified, stored server-side and never echoed', async ({
	page
}) => {
	const classicKey = demo().accounts.find((a) => a._id === 'demo-classic')!.keys[0].key;
	const bodies: string[] = [];
	page.on('response', async (r) => {
		try {
			bodies.push((await r.body()).toString('utf8'));
		} catch {
			// no body
		}
	});
	try {
		await page.goto('/account');
		// Interact once the page is hydrated, so the form uses its enhanced (fetch) submit.
		await page.waitForLoadState('networkidle');
		await page.locator('#customKey').fill('gexbot_custom_not-a-real-key');
		await page.getByRole('button', { name: 'Verify and save' }).click();
		await expect(page.getByTestId('form-message')).toContainText('gexbot_custom_ followed by 43');

		// A well-formed key the upstream does not know is refused before it is stored.
		await page.locator('#customKey').fill(`gexbot_custom_${'A'.repeat(43)}`);
		await page.getByRole('button', { name: 'Verify and save' }).click();
		await expect(page.getByTestId('form-message')).toContainText('refused this key');

		await page.locator('#customKey').fill(classicKey);
		await page.getByRole('button', { name: 'Verify and save' }).click();
		await expect(page.getByTestId('form-message')).toContainText('Saved');
		await expect(page.getByTestId('whoami')).toContainText('demo-classic');
		await expect(page.getByTestId('masked-key')).toContainText(`…${classicKey.slice(-4)}`);
		await expect(page.getByTestId('masked-key')).toContainText('settings');
		expect(bodies.some((b) => b.includes(classicKey))).toBe(false);
	} finally {
		await page.goto('/account');
		await page.getByRole('button', { name: 'Remove stored keys' }).click();
		await expect(page.getByTestId('whoami')).toContainText('demo-research');
	}
});
