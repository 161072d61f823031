import { expect, test, type Page } from '@playwright/test';
import { startDashboard, type RunningDashboard } from '../integration/dashboard-support';

/**
 * Teams mode in Chromium (issue 29): the first admin added from /admin on this machine, a
 * trader signed in from a second browser, then the admin's role change and sign-out-everywhere
 * end the trader's session at once (the trader's next page meets the login).
 */
let d: RunningDashboard;

test.beforeAll(async () => {
	d = await startDashboard({ GEXDECK_UPSTREAM: undefined, GEXDECK_PASSWORD: undefined });
});

test.afterAll(async () => {
	await d?.stop();
});

async function signIn(page: Page, name: string, password: string) {
	// On the login page already (sent there with `next`), or opened fresh.
	if (!page.url().includes('/login')) await page.goto(`${d.base}/login`);
	await page.getByLabel('Name').fill(name);
	await page.getByLabel('Password').fill(password);
	await page.getByRole('button', { name: 'Log in' }).click();
	await expect(page).not.toHaveURL(/\/login/);
}

async function addUser(page: Page, name: string, role: string, password: string) {
	const form = page.locator('form[action="?/addUser"]');
	await form.locator('input[name="name"]').fill(name);
	await form.locator('select[name="role"]').selectOption(role);
	await form.locator('input[name="password"]').fill(password);
	const answered = page.waitForResponse((r) => r.url().includes('?/addUser'));
	await form.getByRole('button', { name: 'Add user' }).click();
	expect((await answered).status()).toBe(200);
}

test('first admin, a trader, then a role change and sign out everywhere', async ({ browser }) => {
	const admin = await browser.newPage();
	// No users yet: this machine is the implicit admin and may add the first one.
	await admin.goto(`${d.base}/admin`);
	await addUser(admin, 'alice', 'admin', 'alice password');
	// Teams mode is on: the next page asks who you are.
	await admin.goto(`${d.base}/admin`);
	await expect(admin).toHaveURL(/\/login\?next=%2Fadmin$/);
	await signIn(admin, 'alice', 'alice password');
	await expect(admin).toHaveURL(`${d.base}/admin`);
	await addUser(admin, 'bob', 'trader', 'bob password');
	await admin.goto(`${d.base}/admin`);
	await expect(admin.locator('tr[data-user="bob"]')).toContainText('enabled');

	const bobContext = await browser.newContext();
	const bob = await bobContext.newPage();
	await signIn(bob, 'bob', 'bob password');
	await bob.goto(`${d.base}/SPX/classic/gex_full`);
	await expect(bob.getByTestId('feed-mode')).toContainText('Streaming', { timeout: 30_000 });
	// A trader may not open the admin page.
	const refused = await bob.request.get(`${d.base}/admin`);
	expect(refused.status()).toBe(403);

	const row = admin.locator('tr[data-user="bob"]');
	await row.getByLabel('Role of bob').selectOption('viewer');
	await row.getByRole('button', { name: 'Set role' }).click();
	await expect(admin.getByRole('status')).toContainText('bob is now viewer');
	await bob.goto(`${d.base}/alerts`);
	await expect(bob).toHaveURL(/\/login\?next=%2Falerts$/);

	await signIn(bob, 'bob', 'bob password');
	await bob.goto(`${d.base}/alerts`);
	await expect(bob).toHaveURL(`${d.base}/alerts`);
	await admin
		.locator('tr[data-user="bob"]')
		.getByRole('button', { name: 'Sign out everywhere' })
		.click();
	await expect(admin.getByRole('status')).toContainText('Ended 1 session(s) of bob');
	await bob.reload();
	await expect(bob).toHaveURL(/\/login\?next=%2Falerts$/);

	// The audit log shows who did it, from where.
	await admin.reload();
	const audit = admin.getByTestId('audit');
	await expect(audit).toContainText('role changed');
	await expect(audit).toContainText('signed out everywhere');
	await bobContext.close();
});
