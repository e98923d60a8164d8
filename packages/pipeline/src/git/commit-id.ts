const COMMIT_ID = /^[0-9a-f]{40}$/;

/** A full commit id as git prints it: 40 lowercase hex digits (abbreviations and refs are refused). */
export function isCommitId(value: string): boolean {
  return COMMIT_ID.test(value);
}

/** True for characters below U+0020 and DEL, which have no place in a path, URL or ref we hand to git. */
export function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
