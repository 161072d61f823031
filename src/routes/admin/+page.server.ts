/**
 * /admin (the admin role only: users/roles.ts, asked by the request gate): the team's users
 * (add, role, disable or enable, sign out everywhere) and the audit log. Each act goes through
 * users/teams.ts, which ends the user's sessions and writes the audit log as the CLI does.
 */
import { fail } from '@sveltejs/kit';
import { appDatabase } from '$lib/server/db/appDb';
import { auditEntries } from '$lib/server/users/audit';
import { isRole } from '$lib/server/users/roles';
import {
	addUser,
	changeRole,
	setDisabled,
	signOutEverywhere,
	teamsMode,
	type Actor
} from '$lib/server/users/teams';
import { UserError, UserStore } from '$lib/server/users/userStore';
import type { Actions, PageServerLoad } from './$types';

export const load = (async ({ locals }) => {
	const db = appDatabase();
	return {
		teams: teamsMode(),
		me: locals.user?.name ?? null,
		users: await new UserStore(db).list(),
		audit: await auditEntries(db, 200)
	};
}) satisfies PageServerLoad;

function actorOf(event: { locals: App.Locals; getClientAddress(): string }): Actor {
	let address: string | null;
	try {
		address = event.getClientAddress();
	} catch {
		address = null;
	}
	return { name: event.locals.user?.name ?? 'owner', address };
}

/** Run one act; a refusal the store explains (a taken name, the last admin) is the form's message. */
async function act(run: () => Promise<string>) {
	try {
		return { message: await run() };
	} catch (e) {
		if (e instanceof UserError) return fail(400, { message: e.message });
		throw e;
	}
}

export const actions = {
	addUser: async (event) => {
		const form = await event.request.formData();
		const name = String(form.get('name') ?? '').trim();
		const role = String(form.get('role') ?? '');
		const password = String(form.get('password') ?? '');
		if (!isRole(role)) return fail(400, { message: 'The role is admin, trader or viewer.' });
		return act(async () => {
			const first = !teamsMode();
			await addUser(appDatabase(), actorOf(event), name, role, password);
			return first
				? `Added ${name} (${role}). Teams mode is on: sign in as ${name}.`
				: `Added ${name} (${role}).`;
		});
	},

	setRole: async (event) => {
		const form = await event.request.formData();
		const name = String(form.get('name') ?? '');
		const role = String(form.get('role') ?? '');
		if (!isRole(role)) return fail(400, { message: 'The role is admin, trader or viewer.' });
		return act(async () => {
			await changeRole(appDatabase(), actorOf(event), name, role);
			return `${name} is now ${role}; their sessions ended.`;
		});
	},

	setDisabled: async (event) => {
		const form = await event.request.formData();
		const name = String(form.get('name') ?? '');
		const disabled = form.get('disabled') === 'true';
		return act(async () => {
			await setDisabled(appDatabase(), actorOf(event), name, disabled);
			return disabled ? `${name} disabled; their sessions ended.` : `${name} enabled.`;
		});
	},

	signOut: async (event) => {
		const form = await event.request.formData();
		const name = String(form.get('name') ?? '');
		return act(async () => {
			const n = await signOutEverywhere(appDatabase(), actorOf(event), name);
			return `Ended ${n} session(s) of ${name}.`;
		});
	}
} satisfies Actions;
