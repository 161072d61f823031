import type { LayoutServerLoad } from './$types';

export const load = (({ locals }) => ({
	csrf: locals.csrf,
	passwordRequired: locals.passwordRequired,
	authenticated: locals.authenticated
})) satisfies LayoutServerLoad;
