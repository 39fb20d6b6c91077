// Secret scrubbing: the last thing that touches text before it can leave the machine.
//
// Everything ccotel exports (tool inputs and outputs, prompts, labels) goes through
// scrubText/scrubValue. We replace each secret value with a `[REDACTED:<pattern>]` marker and
// keep the text around it, so a span still shows *what* happened (`curl -H "Authorization:
// Bearer [REDACTED:authorization-header]" …`) without carrying the credential.
//
// Design rules, and why:
// * Every regex is linear in practice. JavaScript's engine backtracks, so each unbounded run
//   is either anchored on a literal prefix whose body class cannot contain that prefix, or
//   guarded by a lookbehind that excludes the body class (so a run of body characters can be
//   entered at one position only). Where a quantifier is followed by something that can match
//   the same characters, one side is bounded (`{0,40}`) or the scan is lazy and stops on a
//   short alternation, so each position is tried a bounded number of times. This keeps a tool
//   output of megabytes, or a long run of `=`, at about one pass per pattern.
// * Each pattern has a cheap literal hint that is a necessary condition for a match; most
//   strings in a transcript (paths, ids, short labels) skip the regex entirely.
// * Specific token formats run before generic `key=value` rules so that the marker names the
//   credential kind, and every rule refuses to start on an existing marker, so scrubbing is
//   idempotent (scrub(scrub(x)) === scrub(x)).
// * When unsure we redact more (e.g. a whole `Authorization:` line): a secret that leaks
//   cannot be taken back, a redacted word in a trace costs nothing.

/** One secret format. `regex` is global; the secret is its `secret` group (else the match). */
export interface SecretPattern {
  readonly name: string;
  readonly regex: RegExp;
  readonly description: string;
}

interface PatternDef {
  readonly name: string;
  /**
   * Context kept in front of the secret (a key name, a URL's user, a header name). Compiled
   * as an atomic group, see compile().
   */
  readonly pre?: string;
  /** The secret itself: the text that is replaced by the marker. */
  readonly secret: string;
  readonly flags: '' | 'i';
  /** Necessary condition for the regex to match; false means the pattern is skipped. */
  readonly hint: (text: string) => boolean;
  readonly description: string;
}

const MARKER_PREFIX = '[REDACTED:';

/** The text that replaces a secret found by pattern `name`. */
export function redactionMarker(name: string): string {
  return `${MARKER_PREFIX}${name}]`;
}

// A secret value never starts with a marker: this is what makes a second pass a no-op.
const NOT_MARKER = String.raw`(?!\[REDACTED:)`;

// Words that make a key name a secret when the key ENDS with them. "Ends with" is what keeps
// `input_tokens`, `max_tokens`, `token_type`, `tokenizer`, `passwordPolicy` out.
// `auth`, `pass` and `pwd` count only as a whole segment (`_auth`, `DB_PASS`, `MYSQL_PWD`), so
// `oauth`, `bypass` and `compass` stay out.
const KEY_WORDS = [
  'pass(?:word|wd|phrase)',
  'secret',
  'token',
  'api[_-]?key',
  'access[_-]?key',
  'secret[_-]?key',
  'private[_-]?key',
  'auth[_-]?key',
  'account[_-]?key',
  '(?:encryption|signing|master)[_-]?key',
  'client[_-]?secret',
  'credentials?',
  '(?<![A-Za-z0-9])(?:auth|pass|pwd)',
].join('|');

const SECRET_KEY_NAME = new RegExp(`(?:${KEY_WORDS}|authorization|cookie)\\d{0,3}$`, 'i');

/**
 * True when a JSON/object key names a secret (`password`, `GITHUB_TOKEN`, `apiKey`,
 * `x-api-key`, `client_secret`, `Authorization`, …): scrubValue redacts its whole value.
 */
export function isSecretKeyName(key: string): boolean {
  return SECRET_KEY_NAME.test(key);
}

// Necessary for KEY_WORDS to match (every alternative contains one of these).
const KEY_HINT = /pass|secret|token|key|auth|credential|pwd/i;

const BACKTICK = '`';

// Value of a `key = value` pair. After an opening double quote: up to the closing quote,
// honouring backslash escapes (so `\"` stays inside, and serialized JSON stays valid); after a
// single quote: up to the closing quote; unquoted: one shell/env word. The double-quoted body
// is an unrolled loop (`x[^…]*(?:\\.[^…]*)*`) rather than `(?:[^…]|\\.)+`, so V8 keeps no
// backtrack entry per character and a multi-megabyte value cannot exhaust its stack.
const PAIR_VALUE =
  String.raw`(?:(?<=")(?:[^"\\\r\n]|\\.)[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*` +
  String.raw`|(?<=')[^'\r\n]+` +
  String.raw`|(?<!["'])[^\s'"\\${BACKTICK}]+)`;

// An optional quote, possibly backslash-escaped (`{\"password\":\"x\"}` inside a shell arg).
const OPT_QUOTE = String.raw`(?:\\?["'])?`;

// Header-like values: from the first non-blank character to the end of the line or the
// closing quote (a backslash ends it too, so an escaped quote in serialized text is kept).
const REST_OF_LINE = String.raw`[^\s'"\\][^\r\n'"\\]*`;

// Body of an armored key: everything up to the next `-----` (the END line), or to the end of
// the text when END is missing — a key cut short by `head` or a Read limit is still a key.
const ARMOR_BODY = String.raw`[^-]+(?:-(?!----)[^-]*)*`;

const AWS_ID_PREFIXES = 'AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA|A3T[A-Z0-9]';
const AWS_ID_HINT = new RegExp(AWS_ID_PREFIXES);

const AUTH_SCHEMES = 'bearer|basic|token|bot|digest|negotiate|ntlm|aws4-hmac-sha256';

const DEFS: readonly PatternDef[] = [
  {
    name: 'pem-private-key',
    // The BEGIN line stays: it tells a reader what kind of key was there.
    pre: String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----`,
    secret: ARMOR_BODY,
    flags: '',
    hint: (t) => t.includes('PRIVATE KEY-----'),
    description:
      'PEM private key blocks (RSA, EC, DSA, OPENSSH, ENCRYPTED, PKCS#8): the body after the BEGIN line up to the END line, or to the end of the text when END is missing.',
  },
  {
    name: 'pgp-private-key',
    pre: String.raw`-----BEGIN PGP PRIVATE KEY BLOCK-----`,
    secret: ARMOR_BODY,
    flags: '',
    hint: (t) => t.includes('PGP PRIVATE KEY BLOCK-----'),
    description: 'ASCII-armored PGP private key blocks: the armored body.',
  },
  {
    name: 'aws-secret-key',
    // Two contexts make a 40-char base64 run an AWS secret: a key name (`aws_secret_access_key
    // = …`, `"SecretAccessKey": "…"`) or an access key id right before it (credentials CSV,
    // `aws configure` style output). The id itself is left to `aws-access-key`.
    pre:
      String.raw`(?<![A-Za-z0-9])(?:(?:aws_?)?secret_?access_?key${OPT_QUOTE}[ \t]*[:=][ \t]*${OPT_QUOTE}` +
      String.raw`|(?:AKIA|ASIA)[A-Z0-9]{16}[ \t,;:|"'=]{1,6})`,
    secret: String.raw`[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`,
    flags: 'i',
    hint: (t) => /access_?key/i.test(t) || /AKIA|ASIA/i.test(t),
    description:
      'AWS secret access keys (40 base64 chars) after `aws_secret_access_key`/`SecretAccessKey` or right after an access key id.',
  },
  {
    name: 'aws-access-key',
    secret: String.raw`(?<![A-Za-z0-9])(?:${AWS_ID_PREFIXES})[A-Z0-9]{16}(?![A-Za-z0-9])`,
    flags: '',
    hint: (t) => AWS_ID_HINT.test(t),
    description:
      'AWS access key ids (AKIA…, ASIA…, and the other 4-letter IAM prefixes), 20 chars.',
  },
  {
    name: 'aws-session-token',
    // STS session tokens are base64 of a structure that always starts the same way. `=` is
    // only padding: kept out of the body so that `KEY=IQoJ…` starts a token and a run of
    // `=IQoJ…=IQoJ…` cannot be entered at every repetition.
    secret: String.raw`(?<![A-Za-z0-9/+])(?:IQoJb3JpZ2lu|FwoGZXIvYXdz|FQoGZXIvYXdz)[A-Za-z0-9/+]{40,}={0,2}`,
    flags: '',
    hint: (t) => t.includes('IQoJb3JpZ2lu') || t.includes('ZXIvYXdz'),
    description: 'AWS STS session tokens (IQoJb3JpZ2lu…, FwoGZXIvYXdz…).',
  },
  {
    name: 'github-token',
    secret: String.raw`(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`,
    flags: '',
    hint: (t) => /gh[pousr]_|github_pat_/.test(t),
    description: 'GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ and fine-grained github_pat_.',
  },
  {
    name: 'gitlab-token',
    secret: String.raw`(?<![A-Za-z0-9_.-])gl(?:pat|dt|rt|ptt|ft|imt|cbt|soat|oas|agent)-[A-Za-z0-9_.-]{20,}`,
    flags: '',
    hint: (t) => /gl[a-z]{2,5}-/.test(t),
    description:
      'GitLab tokens: glpat-, gldt-, glrt-, glptt-, glft-, glimt-, glcbt-, glsoat-, gloas-, glagent-.',
  },
  {
    name: 'slack-token',
    secret: String.raw`(?<![A-Za-z0-9-])(?:xox[abeoprs]|xapp)-[A-Za-z0-9-]{10,}`,
    flags: '',
    hint: (t) => t.includes('xox') || t.includes('xapp-'),
    description:
      'Slack tokens: xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxo-, xoxe- and app tokens xapp-.',
  },
  {
    name: 'slack-webhook',
    pre: String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/`,
    secret: String.raw`[A-Za-z0-9_/-]{8,}`,
    flags: '',
    hint: (t) => t.includes('hooks.slack.com/'),
    description: 'Slack webhook URLs: the path after hooks.slack.com/services/ (the host is kept).',
  },
  {
    name: 'stripe-key',
    secret: String.raw`(?<![A-Za-z0-9_])(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{20,})`,
    flags: '',
    hint: (t) => /_(?:live|test)_|whsec_/.test(t),
    description:
      'Stripe keys: secret sk_live_/sk_test_, restricted rk_, publishable pk_, webhook secrets whsec_.',
  },
  {
    name: 'anthropic-api-key',
    secret: String.raw`(?<![A-Za-z0-9_-])sk-ant-[a-z]{2,12}\d{0,3}-[A-Za-z0-9_-]{20,}`,
    flags: '',
    hint: (t) => t.includes('sk-ant-'),
    description:
      'Anthropic keys and tokens: sk-ant-api03-, sk-ant-admin01-, sk-ant-oat01-, sk-ant-ort01-.',
  },
  {
    name: 'openai-api-key',
    // `sk-` must start a token (so `task-…`, `risk-…` are safe) and the body must hold an
    // upper-case letter or a digit (so a kebab-case name like `sk-learn-extensions-for-x` is).
    secret: String.raw`(?<![A-Za-z0-9_-])sk-(?=[a-z_-]*[A-Z0-9])[A-Za-z0-9_-]{20,}`,
    flags: '',
    hint: (t) => t.includes('sk-'),
    description: 'OpenAI-style keys: sk-…, sk-proj-…, sk-svcacct-…, sk-admin-… (20+ chars).',
  },
  {
    name: 'google-api-key',
    secret: String.raw`(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{30,}`,
    flags: '',
    hint: (t) => t.includes('AIza'),
    description: 'Google API keys (AIza…, 39 chars).',
  },
  {
    name: 'google-oauth-token',
    secret: String.raw`(?<![A-Za-z0-9_-])(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})`,
    flags: '',
    hint: (t) => t.includes('ya29.') || t.includes('GOCSPX-'),
    description: 'Google OAuth access tokens (ya29.…) and OAuth client secrets (GOCSPX-…).',
  },
  {
    name: 'huggingface-token',
    secret: String.raw`(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}`,
    flags: '',
    hint: (t) => t.includes('hf_'),
    description: 'Hugging Face access tokens (hf_…).',
  },
  {
    name: 'pypi-token',
    secret: String.raw`(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{50,}`,
    flags: '',
    hint: (t) => t.includes('pypi-AgE'),
    description: 'PyPI API tokens (pypi-AgE…).',
  },
  {
    name: 'npm-token',
    secret: String.raw`(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36,}`,
    flags: '',
    hint: (t) => t.includes('npm_'),
    description: 'npm access tokens (npm_ + 36 chars).',
  },
  {
    name: 'jwt',
    // Header and payload are base64url JSON (`{"` → eyJ); the signature may be empty (alg
    // none); up to two more segments cover 5-part JWE.
    secret: String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*){1,3}`,
    flags: '',
    hint: (t) => t.includes('eyJ'),
    description: 'JSON Web Tokens (eyJ….….…), including unsigned and 5-part JWE.',
  },
  {
    name: 'url-password',
    // scheme://user:password@host → keep scheme, user and host. The password runs to the LAST
    // `@` of the authority (as URL parsers read it), so an `@` inside a password is covered.
    // The user part excludes `[`/`]` so that a token already replaced by a marker
    // (`https://[REDACTED:github-token]@host`) is not mistaken for `user:password`.
    pre: String.raw`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@\[\]'"<>\\${BACKTICK}]*:`,
    secret: String.raw`[^\s/?#'"<>\\${BACKTICK}]+(?=@)`,
    flags: '',
    hint: (t) => t.includes('://'),
    description:
      'Passwords in URLs (scheme://user:PASSWORD@host, e.g. database and git remote URLs); user and host are kept.',
  },
  {
    name: 'authorization-header',
    // The credential may be a token68 (Bearer, Basic) or a parameter list (Digest, AWS4-HMAC),
    // so everything after the scheme up to the end of the line or the closing quote goes.
    // Digest parameters are themselves quoted (`response="…"`), so after Digest the whole
    // rest of the line goes, quotes included.
    pre:
      String.raw`(?<![A-Za-z0-9])(?:proxy-)?authorization${OPT_QUOTE}[ \t]*[:=][ \t]*${OPT_QUOTE}` +
      String.raw`(?:(?:${AUTH_SCHEMES})[ \t]+)?`,
    secret: String.raw`(?:(?<=digest[ \t]+)[^\r\n]+|${REST_OF_LINE})`,
    flags: 'i',
    hint: (t) => /authorization/i.test(t),
    description:
      'Authorization / Proxy-Authorization header values, scheme kept (`Authorization: Bearer [REDACTED:…]`), to the end of the line or the closing quote.',
  },
  {
    name: 'cookie-header',
    pre: String.raw`(?<![A-Za-z0-9])(?:set-)?cookie${OPT_QUOTE}[ \t]*:[ \t]*${OPT_QUOTE}`,
    secret: REST_OF_LINE,
    flags: 'i',
    hint: (t) => /cookie/i.test(t),
    description:
      'Cookie / Set-Cookie header values (session cookies), to the end of the line or the closing quote.',
  },
  {
    name: 'bearer-token',
    // A bare `Bearer <token>` outside an Authorization header. The token must hold an
    // upper-case letter or a digit so prose ("Bearer authentication.") stays.
    pre: String.raw`\b[Bb]earer[ \t]+`,
    secret: String.raw`(?=[a-z._~+/=-]*[A-Z0-9])[A-Za-z0-9._~+/=-]{12,}`,
    flags: '',
    hint: (t) => t.includes('earer'),
    description: 'Bare `Bearer <token>` (12+ chars, with an upper-case letter or a digit).',
  },
  {
    name: 'basic-auth-flag',
    // curl/wget style `-u user:password` / `--user user:password`: the user is kept. As in
    // url-password, the user excludes `[`/`]` so a marker's colon is never read as `user:`.
    pre: String.raw`(?<![A-Za-z0-9_-])(?:-u|--user|--proxy-user)[ \t]*=?[ \t]*${OPT_QUOTE}[^\s:'"\\\[\]]+:`,
    secret: String.raw`[^\s'"\\]+`,
    flags: '',
    hint: (t) => t.includes('-u'),
    description:
      '`-u user:password` / `--user user:password` command-line credentials (user kept).',
  },
  {
    name: 'cookie-flag',
    // curl's `-b` / `--cookie` (session cookies, or a file of them) and `--cookie-jar`. The
    // short `-b` means other things to other programs (`git checkout -b`), so it counts only
    // after `curl` in the same command (up to a pipe, `;` or `&`).
    pre:
      String.raw`(?:\bcurl\b[^\r\n|;&]{0,400}?(?<![A-Za-z0-9_-])-b|(?<![A-Za-z0-9_-])--cookie(?:-jar)?)` +
      String.raw`(?:[ \t]*=[ \t]*|[ \t]+)${OPT_QUOTE}`,
    secret: PAIR_VALUE,
    flags: '',
    hint: (t) => t.includes('--cookie') || (t.includes('curl') && t.includes('-b')),
    description:
      'curl `-b` / `--cookie` values (`name=value; …` or a cookie file) and `--cookie-jar` files, quoted values whole.',
  },
  {
    name: 'mysql-password-flag',
    // `mysql -pSECRET` (the password attached; `-p` alone prompts, `-p db` names a database).
    pre: String.raw`\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\r\n|;&]{0,400}?(?<![A-Za-z0-9_-])-p(?=[^\s-])${OPT_QUOTE}`,
    secret: PAIR_VALUE,
    flags: '',
    hint: (t) => (t.includes('mysql') || t.includes('mariadb')) && t.includes('-p'),
    description: 'MySQL / MariaDB client passwords given attached: `mysql -u app -pSECRET`.',
  },
  {
    name: 'sshpass-password',
    pre: String.raw`\bsshpass[ \t]+-p[ \t]*${OPT_QUOTE}`,
    secret: PAIR_VALUE,
    flags: '',
    hint: (t) => t.includes('sshpass'),
    description: '`sshpass -p SECRET`.',
  },
  {
    name: 'netrc-password',
    pre: String.raw`\blogin\s+\S+\s+password\s+`,
    secret: String.raw`\S+`,
    flags: '',
    hint: (t) => t.includes('login') && t.includes('password'),
    description: '.netrc entries: `login <user> password <secret>`.',
  },
  {
    name: 'password-in-prose',
    // "the password is Xy7!…", "with password hunter2": people type credentials into prompts.
    // Only a word that holds a digit or a symbol counts, so "password reset" stays.
    pre: String.raw`(?<![A-Za-z0-9_-])(?:pass(?:word|wd|phrase)|secret|token)[ \t]+(?:(?:is|was)[ \t]+)?["'${BACKTICK}]?`,
    // A word starting with `=`/`:` is an assignment (`password == x`): secret-assignment's.
    secret: String.raw`(?![=:])(?=[^\s'"${BACKTICK}]*[0-9!@#$%^&*_+=~])[^\s'"${BACKTICK}]{6,}`,
    flags: 'i',
    hint: (t) => /pass|secret|token/i.test(t),
    description:
      'A password, secret or token given in prose ("the password is …", "with password …"): the next word, if it has 6+ chars including a digit or symbol.',
  },
  {
    name: 'secret-assignment',
    // KEY=value, KEY: value, "key": "value", key => 'value', key := value, key == value, where
    // KEY ends with a secret word. The key is kept; the value is redacted (the whole quoted
    // string, or one unquoted word).
    pre:
      String.raw`(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*?(?:${KEY_WORDS})\d{0,3}${OPT_QUOTE}` +
      String.raw`[ \t]*(?::=|=>|={1,3}|:(?!:))[ \t]*${OPT_QUOTE}`,
    secret: PAIR_VALUE,
    flags: 'i',
    hint: (t) => KEY_HINT.test(t),
    description:
      'Assignments whose key ends with a secret word (password, passwd, passphrase, pass, pwd, secret, token, api_key, access_key, private_key, client_secret, credentials, auth, …) in env, shell, JSON, YAML, INI and code syntax.',
  },
  {
    name: 'secret-cli-flag',
    // `--password value`, `--api-key "value"`, `-token value` (`--flag=value` is a
    // secret-assignment). A value starting with `-` is the next flag, not a secret; one
    // starting with `=`/`:` is an assignment (`--password == x`) left to secret-assignment.
    pre: String.raw`(?<![A-Za-z0-9_.-])--?[A-Za-z0-9_-]*?(?:${KEY_WORDS})\d{0,3}[ \t]+${OPT_QUOTE}`,
    secret: String.raw`(?![-=:])${PAIR_VALUE}`,
    flags: 'i',
    hint: (t) => t.includes('-') && KEY_HINT.test(t),
    description:
      'Command-line flags naming a secret followed by a separate value (`--password hunter2`).',
  },
];

// `pre` is compiled as an atomic group, emulated with `(?=(?<pre>…))\k<pre>` (a lookahead
// never backtracks into itself). Without it the engine could, on a second pass, give back a
// quote or a separator from `pre` and start a "value" on it (`password:=[REDACTED:…]` would
// become `password:[REDACTED:…]`), breaking idempotence and reporting half-matches.
function compile(d: PatternDef): string {
  if (d.pre === undefined) return d.secret;
  return String.raw`(?=(?<pre>${d.pre}))\k<pre>(?<secret>${NOT_MARKER}${d.secret})`;
}

interface CompiledPattern {
  readonly name: string;
  readonly regex: RegExp;
  readonly hint: (text: string) => boolean;
  readonly marker: string;
}

// Private instances: the exported regexes are global (stateful lastIndex), and callers could
// use them with .test()/.exec(); scrubbing must not depend on what anyone else did with them.
const COMPILED: readonly CompiledPattern[] = DEFS.map((d) => ({
  name: d.name,
  regex: new RegExp(compile(d), `g${d.flags}`),
  hint: d.hint,
  marker: redactionMarker(d.name),
}));

/** The patterns scrubText applies, in order. Regexes are global: reset lastIndex before exec. */
export const SECRET_PATTERNS: readonly SecretPattern[] = Object.freeze(
  DEFS.map((d) =>
    Object.freeze({
      name: d.name,
      regex: new RegExp(compile(d), `g${d.flags}`),
      description: d.description,
    }),
  ),
);

function replaceAll(text: string, p: CompiledPattern): string {
  return text.replace(p.regex, (_match: string, ...rest: unknown[]) => {
    // With named groups the last replacer argument is the groups object. Every pattern is
    // written so that match === pre + secret: we keep `pre` and drop the rest.
    const groups = rest[rest.length - 1];
    if (typeof groups === 'object' && groups !== null) {
      const pre = (groups as { pre?: string }).pre;
      if (pre !== undefined) return pre + p.marker;
    }
    return p.marker;
  });
}

/**
 * One test implied by every pattern's hint (each hint's literal, or a word
 * inside it, case-insensitively): when it fails on a text, every hint fails
 * too, so no pattern can change it. Most strings (paths, ids, labels) then
 * cost one regex instead of thirty hints. Keep it in step with DEFS: the
 * scrub tests check it against the hints on every fixture text and on
 * random strings built from the hints' literals.
 */
const ANY_HINT = new RegExp(
  [
    'key|pass|secret|token|auth|credential|pwd|cookie|earer|curl|mysql|mariadb',
    String.raw`akia|asia|abia|acca|agpa|aida|aipa|anpa|anva|aroa|apka|asca|a3t[a-z0-9]`,
    String.raw`iqojb3jpz2lu|zxivyxdz|gh[pousr]_|github_pat_|gl[a-z]{2,5}-|xox|xapp-`,
    String.raw`hooks\.slack\.com/|_(?:live|test)_|whsec_|sk-|aiza|ya29\.|gocspx-|hf_`,
    String.raw`pypi-age|npm_|eyj|://|-u`,
  ].join('|'),
  'i',
);

/** False only when no pattern's hint holds for `text` (exported for the scrub tests). */
export function mayHoldSecret(text: string): boolean {
  return ANY_HINT.test(text);
}

/** True when some pattern's own hint holds for `text` (the scrub tests compare it with mayHoldSecret). */
export function someHintHolds(text: string): boolean {
  return COMPILED.some((p) => p.hint(text));
}

/** Replace every secret found in `text` by `[REDACTED:<pattern>]`, keeping the text around it. */
export function scrubText(text: string): string {
  // No hint holds: the loop below would test each and return `text` itself.
  if (!ANY_HINT.test(text)) return text;
  let out = text;
  for (const p of COMPILED) {
    if (p.hint(out)) out = replaceAll(out, p);
  }
  return out;
}

/** Marker put in place of the whole value of a key that names a secret (see isSecretKeyName). */
export const SECRET_FIELD_MARKER = redactionMarker('secret-field');

/**
 * Deep-scrub a JSON-like value: every string (object keys included) goes through scrubText;
 * the value of a key that names a secret is replaced whole (numbers and objects too; booleans
 * and null carry nothing and stay). Returns new objects/arrays; the input is not modified.
 * Non-plain objects (Date, Map, class instances) are returned as they are.
 */
export function scrubValue(value: unknown): unknown {
  return scrubInner(value, new WeakSet<object>());
}

function scrubInner(value: unknown, ancestors: WeakSet<object>): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null) return value;
  // A cycle cannot come from JSON.parse, but a caller's object could hold one; recursing
  // forever would hang the exporter.
  if (ancestors.has(value)) return '[Circular]';
  if (Array.isArray(value)) {
    ancestors.add(value);
    const out = value.map((v: unknown) => scrubInner(v, ancestors));
    ancestors.delete(value);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  ancestors.add(value);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const redactWhole =
      isSecretKeyName(k) && v !== null && v !== undefined && typeof v !== 'boolean';
    const key = scrubText(k);
    const scrubbed = redactWhole ? SECRET_FIELD_MARKER : scrubInner(v, ancestors);
    // JSON.parse makes `__proto__` an own key; plain assignment would set the prototype.
    if (key === '__proto__') {
      Object.defineProperty(out, key, {
        value: scrubbed,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      out[key] = scrubbed;
    }
  }
  ancestors.delete(value);
  return out;
}
