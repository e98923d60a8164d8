/** `scheme://userinfo@` anywhere in a text; userinfo cannot hold `/`, `@` or whitespace unencoded. */
const URL_USERINFO = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s/@]+)@/g;

/**
 * Hides credentials written into URLs (`https://user:token@host` becomes `https://user:***@host`),
 * so a git failure can be shown to the caller and logged. A lone user part of an http(s) URL is
 * masked too, because hosts take a token as the user name (`https://<token>@github.com`); the
 * user of an ssh URL (`ssh://git@host`) names an account, not a secret, and is kept.
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, (_match, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    if (colon !== -1) return `${scheme}${userinfo.slice(0, colon)}:***@`;
    return /^https?:\/\/$/i.test(scheme) ? `${scheme}***@` : `${scheme}${userinfo}@`;
  });
}
