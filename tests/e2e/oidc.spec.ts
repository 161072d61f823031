import { expect, test, type Browser, type Page } from '@playwright/test';
import {
	freePort,
	startDashboard,
	startStubUpstream,
	type RunningDashboard,
	type StubUpstream
} from '../integration/dashboard-support';
import { startOidcProvider, type TestOidcProvider } from '../support/oidcProvider';

/**
 * OpenID Connect sign-in in Chromium (issue 29 item 2) against a real provider started here
 * (oidc-provider on localhost, a site of its own: the dashboard is on 127.0.0.1): "Sign in with"
 * on the login page, the provider's form, back to where the user was going with the role their
 * group gives; the admin's role change and sign-out-everywhere end the trader's session at once;
 * a user whose groups map to no role meets a page saying so.
 */
let idp: TestOidcProvider;
let stub: StubUpstream;
let d: RunningDashboard;

test.beforeAll(async () => {
	const port = await freePort();
	const origin = `http://127.0.0.1:${port}`;
	idp = await startOidcProvider(`${origin}/login/oidc/callback`);
	idp.accounts.set('ann', { groups: ['desk-admins'] });
	idp.accounts.set('carl', { groups: ['desk-traders'] });
	idp.accounts.set('olga', { groups: ['staff'] });
	stub = await startStubUpstream();
	d = await startDashboard({ PORT: String(port), ORIGIN: origin, ...stub.env, ...idp.env });
});

test.afterAll(async () => {
	await d?.stop();
	await stub?.close();
	await idp?.close();
});

/** From the dashboard's login page through the provider's form (when it asks) and back. */
async function signIn(page: Page, account: string) {
	await expect(page).toHaveURL(/\/login\?next=/);
	await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
	const form = page.locator('input[name="login"]');
	// The provider asks who you are, unless it remembers you (then it sends you straight back).
	const back = (url: URL) => url.hostname === '127.0.0.1' && !url.pathname.startsWith('/login');
	await Promise.race([form.waitFor(), page.waitForURL(back)]);
	if (!back(new URL(page.url()))) {
		await form.fill(account);
		await page.locator('input[name="password"]').fill('any password');
		await page.getByRole('button', { name: 'Sign-in' }).click();
	}
}

async function newUser(browser: Browser, account: string, path: string) {
	const context = await browser.newContext();
	const page = await context.newPage();
	await page.goto(`${d.base}${path}`);
	await signIn(page, account);
	return { context, page };
}

const adminItem = (page: Page) => page.locator('header').getByRole('link', { name: 'Admin' });

test('sign in through the provider, a role change and sign out everywhere', async ({ browser }) => {
	const ann = await newUser(browser, 'ann', '/admin');
	// Back on the page she asked for, signed in (the Strict session cookie came along).
	await expect(ann.page).toHaveURL(`${d.base}/admin`);
	await expect(adminItem(ann.page)).toBeVisible();

	const carl = await newUser(browser, 'carl', '/alerts');
	await expect(carl.page).toHaveURL(`${d.base}/alerts`);
	await expect(carl.page.getByRole('heading', { level: 1 })).toBeVisible();
	await expect(adminItem(carl.page)).toHaveCount(0);
	// A trader opening /admin meets a page saying what it needs and who can grant it.
	await carl.page.goto(`${d.base}/admin`);
	await expect(carl.page.getByTestId('forbidden-page')).toContainText(
		'This page needs the admin role'
	);
	await expect(carl.page.getByTestId('forbidden-page')).toContainText('ann');
	await expect(carl.page.getByTestId('forbidden-page')).toContainText('Test IdP');

	// Carl was made at his first sign-in, marked as signing in through the provider.
	await ann.page.reload();
	const row = ann.page.locator('tr[data-user="carl"]');
	await expect(row).toContainText('OIDC');
	await expect(row.getByLabel('Role of carl')).toHaveValue('trader');

	// The admin's role change ends carl's session at once.
	await row.getByLabel('Role of carl').selectOption('viewer');
	await row.getByRole('button', { name: 'Set role' }).click();
	await expect(ann.page.getByRole('status')).toContainText('carl is now viewer');
	await carl.page.goto(`${d.base}/alerts`);
	await expect(carl.page).toHaveURL(/\/login\?next=%2Falerts$/);

	// At his next sign-in the provider's group decides: moved to the viewers there, a viewer here.
	idp.accounts.set('carl', { groups: ['desk-viewers'] });
	await signIn(carl.page, 'carl');
	await expect(carl.page).toHaveURL(`${d.base}/alerts`);
	await ann.page.reload();
	await expect(ann.page.locator('tr[data-user="carl"]').getByLabel('Role of carl')).toHaveValue(
		'viewer'
	);

	// Sign out everywhere: carl's next page meets the login.
	await ann.page
		.locator('tr[data-user="carl"]')
		.getByRole('button', { name: 'Sign out everywhere' })
		.click();
	await expect(ann.page.getByRole('status')).toContainText('Ended 1 session(s) of carl');
	await carl.page.reload();
	await expect(carl.page).toHaveURL(/\/login\?next=%2Falerts$/);

	await ann.page.reload();
	const audit = ann.page.getByTestId('audit');
	await expect(audit).toContainText('viewer through Test IdP');
	await expect(audit).toContainText('role changed');
	await expect(audit).toContainText('signed out everywhere');
	await ann.context.close();
	await carl.context.close();
});

test('a user whose groups give no role is refused with a page saying so', async ({ browser }) => {
	const olga = await newUser(browser, 'olga', '/alerts');
	await expect(olga.page.getByTestId('error-page')).toContainText('has no gexdeck role');
	await expect(olga.page.getByTestId('error-page')).toContainText('admin at Test IdP');
	await olga.page.goto(`${d.base}/alerts`);
	await expect(olga.page).toHaveURL(/\/login\?next=%2Falerts$/);
	await olga.context.close();
});
