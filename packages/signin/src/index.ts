// The public surface of @conveyor/signin, used by the conveyor CLI.
export { startSigninServer, createSigninService, type SigninServer, type SigninService } from './main.js';
// The plugin itself is `@conveyor/signin/plugin`: kept out of this entry so the admin CLI does not load Fastify.
export { signinOpenApiDocument } from './http/openapi/document.js';
export { serverOptions as signinServerOptions } from './http/server-options.js';
export { openSigninAdmin, type SigninAdmin } from './admin.js';
export { loadConfig, ConfigError, CONFIG_DEFAULTS, type SigninConfig } from './config.js';
export { createManualClock, systemClock, type Clock, type ManualClock } from '@conveyor/kit';
export { SigninError } from './errors.js';
export { DEFAULT_SIGN_IN_LIMITS, type SigninDeps, type SignInLimits } from './domain/deps.js';
export { endUserSessions } from './domain/sessions.js';
export { checkSessionRequest, describeRealm, findActingRoles, type SessionAnswer, type SessionRequest } from './domain/session-check.js';
export { SessionEnds, type SessionEnd, type SessionEndListener } from './domain/session-ends.js';
export { readCookie, sessionCookieName } from './domain/rules/cookies.js';
export type { SigninStore, SystemStore, RealmStore } from './store/types.js';
export { createRealm, updateRealm, addRealmHost, listRealms, type RealmListing } from './domain/realms.js';
export { addDomain, verifyDomain } from './domain/domains.js';
export { createUser, updateUser, setUserPassword, addEmail, verifyEmail, requireUser } from './domain/users.js';
export { addMember, updateMember, type MemberView } from './domain/members.js';
export { addProvider, updateProvider, mapDomainProvider } from './domain/providers.js';
export { addClient } from './domain/clients.js';
export { canUseClient, userManagementRights } from './domain/authorization.js';
export * from './domain/types.js';
