// See https://svelte.dev/docs/kit/types#app.d.ts
declare global {
	namespace App {
		interface Locals {
			/** Double-submit CSRF token of this browser (also in an httpOnly cookie). */
			csrf: string;
			/** True when no password is configured or the session cookie is valid. */
			authenticated: boolean;
			passwordRequired: boolean;
			/** Teams mode: users exist and each session is a user's. */
			teams: boolean;
			/** Who is signed in (the implicit admin without teams mode), after the gate. */
			user?: import('$lib/server/auth').SessionUser;
		}
		interface Error {
			message: string;
		}
		// interface PageData {}
		// interface PageState {}
		// interface Platform {}
	}
}

export {};
