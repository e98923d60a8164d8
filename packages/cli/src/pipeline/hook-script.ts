// The post-receive hook as a POSIX sh script: no runtime to start, so a push is answered in the time of
// one od, two sha256sum and one curl. The HMAC is computed from its definition,
//   HMAC(K, m) = SHA256((K' xor opad) || SHA256((K' xor ipad) || m)),
// with the padded keys built by the shell's own printf and fed to a plain SHA-256 on standard input:
// `openssl dgst -hmac KEY` (and `-macopt key:`) would put the secret on a command line, which every
// local user can read in `ps`. The secret is read from its file when the hook runs, never written here.
// sha256sum (coreutils, busybox) starts several times faster than openssl, which is the fallback.

/** One shell word in single quotes: safe for any string (a quote becomes '\''). */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function renderHookScript(options: { triggerUrl: string; secretFile: string }): string {
  return `#!/bin/sh
# Conveyor post-receive hook, written by \`conveyor pipeline hook install\`: one signed trigger per
# updated ref (deleted refs are skipped). Needs od, sed, sha256sum (or openssl) and curl. The secret
# stays in its file and in this shell's memory: it is never on a command line (see docs/triggers.md).
set -uf
trigger_url=${shellQuote(options.triggerUrl)}
secret_file=${shellQuote(options.secretFile)}
zero=0000000000000000000000000000000000000000

fail() { printf '%s\\n' "$*" >&2; }

if ! [ -f "$secret_file" ] || ! [ -r "$secret_file" ]; then
  fail "conveyor hook: cannot read the secret file $secret_file; check its path and permissions"
  exit 1
fi
# The secret's bytes in hex; one trailing newline (as editors and echo add) is not part of it.
key=
for pair in $(od -An -v -tx1 < "$secret_file"); do key=$key$pair; done
case $key in *0d0a) key=\${key%0d0a} ;; *0a) key=\${key%0a} ;; esac
if [ -z "$key" ]; then
  fail "conveyor hook: the secret file $secret_file is empty; put the project's trigger secret in it"
  exit 1
fi

# Sets $out to printf escapes of the bytes given in hex, each xor $2 (shell arithmetic and the builtin
# printf: no other process sees the bytes).
escapes() {
  rest=$1 out=
  while [ -n "$rest" ]; do
    byte=$((0x\${rest%"\${rest#??}"} ^ $2))
    rest=\${rest#??}
    out="$out\\\\$((byte >> 6))$(((byte >> 3) & 7))$((byte & 7))"
  done
}

# SHA-256 of standard input, printed in hex at the start of the line.
if command -v sha256sum >/dev/null 2>&1; then
  sha256() { sha256sum; }
else
  sha256() { openssl dgst -sha256 -r; }
fi

# Keys longer than the 64-byte SHA-256 block are hashed first, as HMAC prescribes.
if [ \${#key} -gt 128 ]; then
  escapes "$key" 0
  key=$(printf "$out" | sha256)
  key=\${key%% *}
fi
escapes "$key" 54
ipad=$out
escapes "$key" 92
opad=$out
filler=$(((128 - \${#key}) / 2))
while [ "$filler" -gt 0 ]; do
  ipad="$ipad\\\\066" opad="$opad\\\\134" filler=$((filler - 1))
done

# Sets $json to the text as the inside of a JSON string: quotes and backslashes escaped, control
# characters refused (git refuses them in ref names; an actor name holding one is a misconfiguration).
json_text() {
  case $1 in
    *[[:cntrl:]]*) return 1 ;;
    *[\\\\\\"]*) json=$(printf '%s' "$1" | sed 's/[\\\\"]/\\\\&/g') ;;
    *) json=$1 ;;
  esac
}

actor=\${CONVEYOR_ACTOR:-\${GL_USERNAME:-\${GITEA_PUSHER_NAME:-}}}
[ -n "$actor" ] || actor=$(id -un 2>/dev/null) || actor=
if ! json_text "$actor"; then
  fail "conveyor hook: the pusher's name contains control characters; set CONVEYOR_ACTOR to a plain name"
  exit 1
fi
actor_json=$json

status=0
while read -r old new ref; do
  case $new in *[!0]*) ;; *)
    printf 'skipped %s: deleted, nothing to build\\n' "$ref"
    continue ;;
  esac
  short=\${new%"\${new#???????}"}
  case $new in *[!0-9a-f]*) new= ;; esac
  if [ \${#new} -ne 40 ]; then
    fail "failed $ref: the new commit is not a 40-hex commit id"
    status=1
    continue
  fi
  base=$old
  case $base in $zero | *[!0-9a-f]*) base= ;; esac
  [ \${#base} -eq 40 ] || base=
  if ! json_text "$ref"; then
    fail "failed $ref: the ref name contains control characters"
    status=1
    continue
  fi
  body="{\\"sha\\":\\"$new\\",\\"base\\":\\"$base\\",\\"ref\\":\\"$json\\",\\"actor\\":\\"$actor_json\\"}"
  inner=$({ printf "$ipad"; printf '%s' "$body"; } | sha256)
  escapes "\${inner%% *}" 0
  sig=$({ printf "$opad"; printf "$out"; } | sha256)
  sig=\${sig%% *}
  if [ \${#sig} -ne 64 ]; then
    fail "failed $ref $short: could not sign the trigger (install sha256sum or openssl)"
    status=1
    continue
  fi
  # The signature goes in as a header file on fd 3, the body on stdin: neither is on curl's command line.
  answer=$(printf '%s' "$body" | curl -sS --max-time 30 -A conveyor-hook -H 'Content-Type: application/json' \\
    -H @/dev/fd/3 --data-binary @- -w '\\n%{http_code}' "$trigger_url" 3<<EOF
X-Hub-Signature-256: sha256=$sig
EOF
  ) || { fail "failed $ref $short: the service did not answer (curl above says why)"; status=1; continue; }
  code=\${answer##*"
"}
  reply=\${answer%"
"*}
  case $code in
    2??)
      case $reply in
        *'"job_id":"'*) id=\${reply#*'"job_id":"'}; printf 'triggered %s %s: job %s\\n' "$ref" "$short" "\${id%%'"'*}" ;;
        *) printf 'triggered %s %s: %s\\n' "$ref" "$short" "$reply" ;;
      esac ;;
    *)
      fail "failed $ref $short: HTTP $code: $reply"
      status=1 ;;
  esac
done
exit $status
`;
}
