// Proof that the scrubber removes secrets and leaves ordinary transcript text alone.
// The fixture session (fixtures/secrets/) plants fake credentials everywhere Claude Code
// writes user-controlled text; secrets.json lists them. A leak fails with the pattern's name.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SECRET_FIELD_MARKER,
  SECRET_PATTERNS,
  isSecretKeyName,
  mayHoldSecret,
  redactionMarker,
  scrubText,
  scrubValue,
  someHintHolds,
} from '../../../../src/core/spans/scrub.js';

const FIXTURE_DIR = fileURLToPath(new URL('../../../../fixtures/secrets/', import.meta.url));
const SESSION_ID = '5e3c7a1f-2b4d-4e8a-9c6f-0d1e2f3a4b5c';
const AGENT_ID = 'a3f9c2e1b7d40586a';
const FIXTURE_FILES = [
  `${SESSION_ID}.jsonl`,
  `${SESSION_ID}/subagents/agent-${AGENT_ID}.jsonl`,
  `${SESSION_ID}/subagents/agent-${AGENT_ID}.meta.json`,
];

interface PlantedSecret {
  pattern: string;
  value: string;
}

function readFixture(rel: string): string {
  return readFileSync(FIXTURE_DIR + rel, 'utf8');
}

const PLANTED = JSON.parse(readFixture('secrets.json')) as PlantedSecret[];
const PATTERN_NAMES = SECRET_PATTERNS.map((p) => p.name);

/** Throws on the first planted value found in `text`, naming its pattern and where it was. */
function assertNoLeak(text: string, secrets: readonly PlantedSecret[], where: string): void {
  for (const s of secrets) {
    if (text.includes(s.value)) {
      throw new Error(`${s.pattern} leaked in ${where}: ${s.value.slice(0, 24)}…`);
    }
  }
}

// Fake values in real formats. Built with repeat() so lengths are easy to check by eye.
const AWS_SECRET = 'FakeFAKE/fake+FakeFAKE/fake+FakeFAKE/fak'; // 40
const F36 = 'FAKEfake0000'.repeat(3); // 36
const RSA_BODY = 'MIIEpAIBAAKCAQEAfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKEfakeFAKE';
const SSH_BODY = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABFAKEFAKEFAKE';

interface Sample {
  pattern: string;
  label: string;
  text: string;
  /** The exact substring that must not survive. */
  value: string;
}

const SAMPLES: readonly Sample[] = [
  {
    pattern: 'pem-private-key',
    label: 'RSA, multi-line',
    text: `key:\n-----BEGIN RSA PRIVATE KEY-----\n${RSA_BODY}\nFAKEline2FAKE==\n-----END RSA PRIVATE KEY-----\ndone`,
    value: RSA_BODY,
  },
  {
    pattern: 'pem-private-key',
    label: 'OPENSSH',
    text: `-----BEGIN OPENSSH PRIVATE KEY-----\n${SSH_BODY}\n-----END OPENSSH PRIVATE KEY-----`,
    value: SSH_BODY,
  },
  {
    pattern: 'pem-private-key',
    label: 'EC',
    text: '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIFAKEecFAKEecFAKEecFAKE\n-----END EC PRIVATE KEY-----',
    value: 'MHcCAQEEIFAKEecFAKEecFAKEecFAKE',
  },
  {
    pattern: 'pem-private-key',
    label: 'ENCRYPTED PKCS#8',
    text: '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqFAKEencFAKEenc\n-----END ENCRYPTED PRIVATE KEY-----',
    value: 'MIIFHDBOBgkqFAKEencFAKEenc',
  },
  {
    pattern: 'pem-private-key',
    label: 'PKCS#8 in a Read result with line numbers',
    text: '     1→-----BEGIN PRIVATE KEY-----\n     2→MIIEvQIBADANFAKEpkcs8FAKE\n     3→-----END PRIVATE KEY-----\n',
    value: 'MIIEvQIBADANFAKEpkcs8FAKE',
  },
  {
    pattern: 'pem-private-key',
    label: 'truncated (no END line)',
    text: '$ head -3 id_rsa\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowFAKEtruncatedFAKE\nFAKEsecondLINE',
    value: 'FAKEsecondLINE',
  },
  {
    pattern: 'pgp-private-key',
    label: 'armored block',
    text: '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGFAKEpgpFAKEpgpFAKE\n=FAKE\n-----END PGP PRIVATE KEY BLOCK-----',
    value: 'lQOYBGFAKEpgpFAKEpgpFAKE',
  },
  {
    pattern: 'aws-secret-key',
    label: 'credentials file',
    text: `[default]\naws_access_key_id = AKIAFAKEFAKEFAKE1234\naws_secret_access_key = ${AWS_SECRET}\n`,
    value: AWS_SECRET,
  },
  {
    pattern: 'aws-secret-key',
    label: 'env',
    text: `AWS_SECRET_ACCESS_KEY=${AWS_SECRET} aws s3 ls`,
    value: AWS_SECRET,
  },
  {
    pattern: 'aws-secret-key',
    label: 'sts JSON',
    text: `{"AccessKeyId": "ASIAFAKEFAKEFAKE5678", "SecretAccessKey": "${AWS_SECRET}"}`,
    value: AWS_SECRET,
  },
  {
    pattern: 'aws-secret-key',
    label: 'after the key id (credentials CSV)',
    text: `Access key ID,Secret access key\nAKIAFAKEFAKEFAKE1234,${AWS_SECRET}\n`,
    value: AWS_SECRET,
  },
  {
    pattern: 'aws-access-key',
    label: 'AKIA',
    text: 'using key AKIAFAKEFAKEFAKE1234 for us-east-1',
    value: 'AKIAFAKEFAKEFAKE1234',
  },
  {
    pattern: 'aws-access-key',
    label: 'ASIA (temporary)',
    text: 'AccessKeyId\tASIAFAKEFAKEFAKE5678',
    value: 'ASIAFAKEFAKEFAKE5678',
  },
  {
    pattern: 'aws-session-token',
    label: 'bare STS token',
    text: `export SESSION=IQoJb3JpZ2luX2VjEFAKE${'FAKEsession/token+'.repeat(6)} && aws s3 ls`,
    value: `IQoJb3JpZ2luX2VjEFAKE${'FAKEsession/token+'.repeat(6)}`,
  },
  { pattern: 'github-token', label: 'ghp_', text: `token ghp_${F36}.`, value: `ghp_${F36}` },
  { pattern: 'github-token', label: 'gho_', text: `gho_${F36}`, value: `gho_${F36}` },
  { pattern: 'github-token', label: 'ghu_', text: `(ghu_${F36})`, value: `ghu_${F36}` },
  { pattern: 'github-token', label: 'ghs_', text: `GH=ghs_${F36}`, value: `ghs_${F36}` },
  { pattern: 'github-token', label: 'ghr_', text: `"ghr_${F36}"`, value: `ghr_${F36}` },
  {
    pattern: 'github-token',
    label: 'github_pat_',
    text: `github_pat_11FAKE0000FAKE0000FAKE0_${'fakeFAKE0'.repeat(6)}12345`,
    value: `github_pat_11FAKE0000FAKE0000FAKE0_${'fakeFAKE0'.repeat(6)}12345`,
  },
  {
    pattern: 'github-token',
    label: 'as the user of a clone URL',
    text: `git clone https://ghp_${F36}@github.com/acme/app.git`,
    value: `ghp_${F36}`,
  },
  {
    pattern: 'gitlab-token',
    label: 'glpat-',
    text: 'PRIVATE-TOKEN: glpat-FAKEfake-0000_FAKEfa',
    value: 'glpat-FAKEfake-0000_FAKEfa',
  },
  {
    pattern: 'gitlab-token',
    label: 'gldt-',
    text: 'gldt-FAKEfakeFAKEfake0000',
    value: 'gldt-FAKEfakeFAKEfake0000',
  },
  {
    pattern: 'gitlab-token',
    label: 'glrt-',
    text: 'runner glrt-FAKEfakeFAKEfake0000 ok',
    value: 'glrt-FAKEfakeFAKEfake0000',
  },
  ...['xoxb', 'xoxp', 'xoxa', 'xoxr', 'xoxs'].map((p) => ({
    pattern: 'slack-token',
    label: `${p}-`,
    text: `SLACK=${p}-000000000000-0000000000000-FAKEfakeFAKEfakeFAKEfake`,
    value: `${p}-000000000000-0000000000000-FAKEfakeFAKEfakeFAKEfake`,
  })),
  {
    pattern: 'slack-webhook',
    label: 'services URL',
    text: 'curl -X POST https://hooks.slack.com/services/T0FAKE000/B0FAKE000/FAKEhookFAKEhookFAKEhook -d {}',
    value: 'T0FAKE000/B0FAKE000/FAKEhookFAKEhookFAKEhook',
  },
  ...['sk_live_', 'sk_test_', 'rk_live_', 'pk_live_'].map((p) => ({
    pattern: 'stripe-key',
    label: p,
    text: `stripe.api_key_value(${p}FAKEfake0000FAKEfake0000)`,
    value: `${p}FAKEfake0000FAKEfake0000`,
  })),
  {
    pattern: 'stripe-key',
    label: 'whsec_',
    text: 'signing secret whsec_FAKEwebhook0FAKEwebhook0FAKEwebh',
    value: 'whsec_FAKEwebhook0FAKEwebhook0FAKEwebh',
  },
  ...['api03', 'admin01', 'oat01'].map((k) => ({
    pattern: 'anthropic-api-key',
    label: k,
    text: `use sk-ant-${k}-${'FAKE-fake_0000'.repeat(6)}AA now`,
    value: `sk-ant-${k}-${'FAKE-fake_0000'.repeat(6)}AA`,
  })),
  {
    pattern: 'openai-api-key',
    label: 'legacy sk-',
    text: 'key sk-FAKEfake0000FAKEfakeT3BlbkFJfake0000FAKEfake0000',
    value: 'sk-FAKEfake0000FAKEfakeT3BlbkFJfake0000FAKEfake0000',
  },
  {
    pattern: 'openai-api-key',
    label: 'sk-proj-',
    text: `client = OpenAI(api_key_value=sk-proj-${'FAKEfake0000_-'.repeat(5)})`,
    value: `sk-proj-${'FAKEfake0000_-'.repeat(5)}`,
  },
  {
    pattern: 'openai-api-key',
    label: 'sk-svcacct-',
    text: `sk-svcacct-${'FAKEfake0000'.repeat(4)}`,
    value: `sk-svcacct-${'FAKEfake0000'.repeat(4)}`,
  },
  {
    pattern: 'google-api-key',
    label: 'AIza',
    text: 'https://maps.googleapis.com/maps/api/js?v=3&k=AIzaSyFAKE-fake_0000SyFAKE-fake_00',
    value: 'AIzaSyFAKE-fake_0000SyFAKE-fake_00',
  },
  {
    pattern: 'google-oauth-token',
    label: 'ya29.',
    text: 'gcloud says ya29.a0FAKEoauth-fake_0000FAKEoauth',
    value: 'ya29.a0FAKEoauth-fake_0000FAKEoauth',
  },
  {
    pattern: 'google-oauth-token',
    label: 'GOCSPX-',
    text: 'GOCSPX-FAKEfakeFAKEfake0000FAKE',
    value: 'GOCSPX-FAKEfakeFAKEfake0000FAKE',
  },
  {
    pattern: 'huggingface-token',
    label: 'hf_',
    text: 'huggingface-cli login hf_FAKEfakeHF00FAKEfakeHF00FAKEfakeHF',
    value: 'hf_FAKEfakeHF00FAKEfakeHF00FAKEfakeHF',
  },
  {
    pattern: 'pypi-token',
    label: 'pypi-AgE',
    text: `twine upload -p pypi-AgEIcHlwaS5vcmc${'FAKEpypi0000'.repeat(6)} dist/*`,
    value: `pypi-AgEIcHlwaS5vcmc${'FAKEpypi0000'.repeat(6)}`,
  },
  {
    pattern: 'npm-token',
    label: 'npm_',
    text: `//registry.npmjs.org/:_authToken=npm_${F36}`,
    value: `npm_${F36}`,
  },
  {
    pattern: 'jwt',
    label: 'signed',
    text: 'id_token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlIn0.FAKEsig0FAKEsig0FAKEsig0 end',
    value: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtlIn0.FAKEsig0FAKEsig0FAKEsig0',
  },
  {
    pattern: 'jwt',
    label: 'unsigned (alg none)',
    text: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJmYWtlIn0.',
    value: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJmYWtlIn0',
  },
  {
    pattern: 'url-password',
    label: 'postgres',
    text: 'DATABASE_URL=postgres://app:Fake-DB-Pa55-0000@db.internal:5432/app',
    value: 'Fake-DB-Pa55-0000',
  },
  {
    pattern: 'url-password',
    label: 'redis, empty user',
    text: 'redis://:FakeRedisPa55@cache:6379/0',
    value: 'FakeRedisPa55',
  },
  {
    pattern: 'url-password',
    label: 'password containing @',
    text: 'mongodb+srv://root:Fake@Pa55@cluster0.example.net/db',
    value: 'Fake@Pa55',
  },
  {
    pattern: 'authorization-header',
    label: 'Bearer in curl -H',
    text: 'curl -H "Authorization: Bearer FAKEopaqueT0ken0000" https://api',
    value: 'FAKEopaqueT0ken0000',
  },
  {
    pattern: 'authorization-header',
    label: 'Basic',
    text: 'Authorization: Basic ZmFrZS11c2VyOmZha2UtcGFzcw==',
    value: 'ZmFrZS11c2VyOmZha2UtcGFzcw==',
  },
  {
    pattern: 'authorization-header',
    label: 'Digest (quoted parameters)',
    text: '> Authorization: Digest username="bob", response="6629fae49393a05397450978507c4ef1"\n< 200',
    value: '6629fae49393a05397450978507c4ef1',
  },
  {
    pattern: 'authorization-header',
    label: 'JSON header object as text',
    text: '{"headers": {"authorization": "token FAKEtoken0000"}}',
    value: 'FAKEtoken0000',
  },
  {
    pattern: 'cookie-header',
    label: 'Cookie',
    text: "curl -H 'Cookie: session=FAKEsess10n0000; csrftoken=FAKEcsrf00' https://x",
    value: 'FAKEsess10n0000',
  },
  {
    pattern: 'cookie-header',
    label: 'Set-Cookie',
    text: '< Set-Cookie: sid=FAKEsid0000; Path=/; HttpOnly',
    value: 'FAKEsid0000',
  },
  {
    pattern: 'bearer-token',
    label: 'bare',
    text: 'x-debug-token: Bearer FAKEopaque0T0ken0Value0000',
    value: 'FAKEopaque0T0ken0Value0000',
  },
  {
    pattern: 'basic-auth-flag',
    label: 'curl -u',
    text: 'curl -u deploy:Fake-Curl-Pa55 https://x',
    value: 'Fake-Curl-Pa55',
  },
  {
    pattern: 'basic-auth-flag',
    label: '--user quoted',
    text: "curl --user 'deploy:FakeCurlPass' https://x",
    value: 'FakeCurlPass',
  },
  {
    pattern: 'cookie-flag',
    label: 'curl -b quoted cookie list',
    text: `curl -sS -b 'sessionid=FakeCookieSess10n; csrftoken=abc' https://x`,
    value: 'FakeCookieSess10n',
  },
  {
    pattern: 'cookie-flag',
    label: 'curl -b unquoted',
    text: 'curl -s https://x -b sid=FakeUnquotedCookie0 -o out',
    value: 'FakeUnquotedCookie0',
  },
  {
    pattern: 'cookie-flag',
    label: '--cookie=',
    text: 'curl --cookie="remember=FakeCookieEq0" https://x',
    value: 'FakeCookieEq0',
  },
  {
    pattern: 'cookie-flag',
    label: '--cookie-jar',
    text: 'curl --cookie-jar FakeJar0File.txt https://x',
    value: 'FakeJar0File.txt',
  },
  {
    pattern: 'mysql-password-flag',
    label: 'mysql -pSECRET',
    text: 'mysql -h db -u app -pFakeMysqlPa55 appdb',
    value: 'FakeMysqlPa55',
  },
  {
    pattern: 'mysql-password-flag',
    label: "mysqldump -p'quoted'",
    text: "mysqldump -u root -p'Fake Dump Pa55' appdb > dump.sql",
    value: 'Fake Dump Pa55',
  },
  {
    pattern: 'sshpass-password',
    label: 'sshpass -p',
    text: 'sshpass -p FakeSshpassPa55 ssh deploy@bastion',
    value: 'FakeSshpassPa55',
  },
  {
    pattern: 'netrc-password',
    label: '.netrc',
    text: 'machine api.example.com login deploy password FakeNetrcPass',
    value: 'FakeNetrcPass',
  },
  {
    pattern: 'password-in-prose',
    label: 'the password is',
    text: 'the staging DB password is Fake-Prose-Pa55 if you need it',
    value: 'Fake-Prose-Pa55',
  },
  {
    pattern: 'password-in-prose',
    label: 'with password',
    text: 'log in as deploy with password hunter2-2026.',
    value: 'hunter2-2026',
  },
  {
    pattern: 'secret-assignment',
    label: 'env KEY=value',
    text: 'JWT_SECRET=fake-jwt-signing-secret\nPORT=3000',
    value: 'fake-jwt-signing-secret',
  },
  {
    pattern: 'secret-assignment',
    label: 'export',
    text: 'export API_TOKEN=fake-api-token-0000 && ./deploy.sh',
    value: 'fake-api-token-0000',
  },
  {
    pattern: 'secret-assignment',
    label: 'quoted with spaces',
    text: 'SESSION_SECRET="fake session secret 0000"',
    value: 'fake session secret 0000',
  },
  {
    pattern: 'secret-assignment',
    label: 'JSON',
    text: '{"username": "app", "password": "Fake-Json-Pa55", "port": 5432}',
    value: 'Fake-Json-Pa55',
  },
  {
    pattern: 'secret-assignment',
    label: 'JSON with escaped quote',
    text: '{"client_secret":"Fake\\"Quoted\\"Secret"}',
    value: 'Quoted',
  },
  {
    pattern: 'secret-assignment',
    label: 'escaped JSON inside a shell argument',
    text: `curl -d '{\\"password\\":\\"FakeEscapedPass\\"}' https://x`,
    value: 'FakeEscapedPass',
  },
  {
    pattern: 'secret-assignment',
    label: 'YAML',
    text: 'db:\n  user: app\n  password: FakeYamlPass\n',
    value: 'FakeYamlPass',
  },
  {
    pattern: 'secret-assignment',
    label: 'INI / Python',
    text: "client_secret = 'FakeIniSecret'",
    value: 'FakeIniSecret',
  },
  {
    pattern: 'secret-assignment',
    label: 'camelCase key',
    text: 'const cfg = { apiKey: "FakeCamelKey", region: "eu" }',
    value: 'FakeCamelKey',
  },
  {
    pattern: 'secret-assignment',
    label: 'header-style x-api-key',
    text: 'x-api-key: FakeHeaderKey0000',
    value: 'FakeHeaderKey0000',
  },
  {
    pattern: 'secret-assignment',
    label: 'Go :=',
    text: 'dbPassword := "FakeGoPass"',
    value: 'FakeGoPass',
  },
  {
    pattern: 'secret-assignment',
    label: 'Ruby =>',
    text: "{ :password => 'FakeRubyPass' }",
    value: 'FakeRubyPass',
  },
  {
    pattern: 'secret-assignment',
    label: '--flag=value',
    text: 'mysql --password=FakeMysqlPass -e "select 1"',
    value: 'FakeMysqlPass',
  },
  {
    pattern: 'secret-assignment',
    label: 'URL query',
    text: 'GET /callback?access_token=FakeQueryToken&state=1',
    value: 'FakeQueryToken',
  },
  {
    pattern: 'secret-assignment',
    label: 'DB_PASS segment',
    text: 'SMTP_HOST=mail DB_PASS=FakeDbPass MYSQL_PWD=FakeMysqlPwd',
    value: 'FakeDbPass',
  },
  {
    pattern: 'secret-assignment',
    label: 'npmrc _auth',
    text: '_auth=ZmFrZTpmYWtl',
    value: 'ZmFrZTpmYWtl',
  },
  {
    pattern: 'secret-cli-flag',
    label: '--password value',
    text: "mysql -u app --password 'FakeCliPass' -e 'select 1'",
    value: 'FakeCliPass',
  },
  {
    pattern: 'secret-cli-flag',
    label: '--api-key value',
    text: 'tool --api-key FakeCliApiKey --verbose',
    value: 'FakeCliApiKey',
  },
  {
    pattern: 'secret-cli-flag',
    label: '-token value',
    text: 'vault login -token FakeVaultToken',
    value: 'FakeVaultToken',
  },
];

// Text that must come out unchanged: ids, hashes, paths and prose that look a bit like secrets.
const FALSE_POSITIVES: readonly string[] = [
  'git checkout -b feature/cookie-flag && git push -u origin feature/cookie-flag',
  'curl -sS https://x | grep -b pattern',
  'mysql -u app -p appdb < schema.sql',
  'wget --load-cookies cookies.txt --no-cookies https://x',
  '38de8ad0-4252-46b7-8ae6-9c8b1ca0033c',
  'commit 9f2c1e0b7d4a6e8f0c2b4d6e8f0a1b2c3d4e5f60 (HEAD -> main)',
  'msg_01RstS2zhdgF5MtVkm4hb1Yp req_011CXghLe6sMZYJTqCJCvVAJ toolu_013WZc6b6s3vxp7drx1wUuWF',
  "agentId: a93ccab (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 49100\ntool_uses: 25\nduration_ms: 57709</usage>",
  'agent-a3f9c2e1b7d40586a.jsonl agent-aprompt_suggestion-0c54a2',
  '/home/dev/projects/payments-api/src/auth/token-store.ts:42:7',
  'task-1234567890abcdefghijklmnop risk-assessment-2026-report desk-0123456789abcdefghij',
  'pip install scikit-learn sk-learn-extensions-for-pipelines',
  '{"input_tokens":3,"cache_creation_input_tokens":7756,"cache_read_input_tokens":10351,"output_tokens":8,"max_tokens":1024}',
  '{"access_token_expires_in": 3600, "token_type": "Bearer", "tokenizer": "cl100k"}',
  'We use Bearer authentication. Send `Bearer <token>` or Bearer $TOKEN.',
  'Implement the password reset flow and a secret santa page; rotate the token weekly.',
  'The password field is required. Tokens: 1.2k in, 300 out.',
  'https://github.com/bradleygolden/claude-marketplace-elixir git@github.com:acme/app.git',
  'postgres://localhost:5432/app http://127.0.0.1:8080/health?x=1&y=2 ssh://git@host:22/repo',
  'mail dev@example.com at 10:30:00 on 2026-08-20T10:00:00.000Z',
  'export PATH=/usr/local/bin:$PATH NODE_ENV=production npm_config_cache=/tmp/npm',
  'docker pull node@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
  'def get_token(self):\n    return self._tokens[-1]\n',
  'grep -rn "BEGIN RSA PRIVATE KEY" . # find stray keys',
  'Use ASIA/Tokyo? No: Asia/Tokyo. AKIA is a prefix, not a key.',
  '| col | value |\n| --- | ----- |\n| a | 1 |\n\n-----\n',
  'EpcDCkYICxgCKkAVVSLmlgHFguK4NZtL0elLPml2weq7OmSuUK6y45GK/glHZ19NpRpD/YvBGlp+gHUL7PlZpHeTEY',
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'sort -u names.txt && git push -u origin main',
  'The secret is out. A password manager. One token left.',
  'PASS  test/unit/core/spans/scrub.test.ts (173 tests) — bypass=true compass: north',
];

describe('SECRET_PATTERNS', () => {
  it('has unique names, global regexes, and a sample for every pattern', () => {
    expect(new Set(PATTERN_NAMES).size).toBe(PATTERN_NAMES.length);
    for (const p of SECRET_PATTERNS) {
      expect(p.regex.global, p.name).toBe(true);
      expect(p.description.length, p.name).toBeGreaterThan(10);
      expect(
        SAMPLES.some((s) => s.pattern === p.name),
        `no sample for ${p.name}`,
      ).toBe(true);
    }
  });

  it('ends every match with the secret: the kept prefix is exactly `pre`', () => {
    // scrubText keeps `pre` and drops the rest of the match, so text after the secret must
    // never be part of a match (it would be silently deleted).
    for (const s of SAMPLES) {
      const p = SECRET_PATTERNS.find((x) => x.name === s.pattern);
      if (p === undefined) throw new Error(`unknown pattern ${s.pattern}`);
      for (const m of s.text.matchAll(new RegExp(p.regex.source, p.regex.flags))) {
        const g = m.groups;
        if (g?.secret !== undefined) expect(m[0], s.label).toBe((g.pre ?? '') + g.secret);
      }
    }
  });

  it('exported regexes are independent of the ones scrubText uses', () => {
    // A caller leaving lastIndex mid-string must not make scrubText miss a secret.
    const p = SECRET_PATTERNS.find((x) => x.name === 'aws-access-key');
    if (p === undefined) throw new Error('missing aws-access-key');
    p.regex.lastIndex = 1000;
    expect(scrubText('AKIAFAKEFAKEFAKE1234')).toBe(redactionMarker('aws-access-key'));
  });
});

describe('scrubText', () => {
  it.each(SAMPLES.map((s) => [`${s.pattern}: ${s.label}`, s] as const))('%s', (_name, s) => {
    const out = scrubText(s.text);
    if (out.includes(s.value)) throw new Error(`${s.pattern} leaked (${s.label}): ${out}`);
    expect(out).toContain(redactionMarker(s.pattern));
    expect(scrubText(out)).toBe(out);
  });

  it('keeps the text around a secret', () => {
    expect(scrubText('aws AKIAFAKEFAKEFAKE1234 here')).toBe('aws [REDACTED:aws-access-key] here');
    expect(scrubText('postgres://app:Fake-DB-Pa55@db:5432/x')).toBe(
      'postgres://app:[REDACTED:url-password]@db:5432/x',
    );
    expect(scrubText('curl -H "Authorization: Bearer abc123DEF" https://api')).toBe(
      'curl -H "Authorization: Bearer [REDACTED:authorization-header]" https://api',
    );
    expect(scrubText('export API_TOKEN=abc && echo ok')).toBe(
      'export API_TOKEN=[REDACTED:secret-assignment] && echo ok',
    );
    expect(scrubText('{"password": "x", "user": "app"}')).toBe(
      '{"password": "[REDACTED:secret-assignment]", "user": "app"}',
    );
    expect(
      scrubText('a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nb'),
    ).toBe(
      'a\n-----BEGIN RSA PRIVATE KEY-----[REDACTED:pem-private-key]-----END RSA PRIVATE KEY-----\nb',
    );
  });

  it('keeps serialized JSON valid when a value holds escaped quotes', () => {
    const line = JSON.stringify({
      command: `curl -d '{"password":"Fake\\"Pass"}' -u a:b https://x`,
    });
    const out = scrubText(line);
    expect(() => JSON.parse(out) as unknown).not.toThrow();
    expect(out).not.toContain('Fake');
  });

  it.each(FALSE_POSITIVES.map((t) => [t] as const))('leaves ordinary text alone: %s', (text) => {
    expect(scrubText(text)).toBe(text);
  });

  it('returns the empty string and marker-only strings unchanged', () => {
    expect(scrubText('')).toBe('');
    for (const name of PATTERN_NAMES) {
      const m = redactionMarker(name);
      expect(scrubText(m)).toBe(m);
    }
  });
});

describe('isSecretKeyName / scrubValue', () => {
  it.each([
    'password',
    'PASSWORD',
    'db_password',
    'dbPassword',
    'passwd',
    'passphrase',
    'secret',
    'client_secret',
    'clientSecret',
    'token',
    'GITHUB_TOKEN',
    'access_token',
    'refreshToken',
    'api_key',
    'api-key',
    'apiKey',
    'X-API-Key',
    'apikey',
    'access_key',
    'SecretAccessKey',
    'private_key',
    'privateKey',
    'Authorization',
    'proxy-authorization',
    'cookie',
    'Set-Cookie',
    'auth',
    '_auth',
    'DB_PASS',
    'MYSQL_PWD',
    'credentials',
  ])('%s names a secret', (key) => {
    expect(isSecretKeyName(key)).toBe(true);
  });

  it.each([
    'input_tokens',
    'max_tokens',
    'cache_read_input_tokens',
    'totalTokens',
    'token_type',
    'tokenizer',
    'passwordPolicy',
    'secretName',
    'keys',
    'key',
    'oauth',
    'bypass',
    'compass',
    'author',
    'authorizationUrl',
    'access_key_id',
    'description',
  ])('%s does not', (key) => {
    expect(isSecretKeyName(key)).toBe(false);
  });

  it('deep-scrubs strings in nested objects and arrays, keys included', () => {
    const input = {
      type: 'tool_use',
      input: {
        command: 'AWS_ACCESS_KEY_ID=AKIAFAKEFAKEFAKE1234 aws s3 ls',
        env: [{ name: 'X', value: `ghp_${F36}` }],
        answers: { [`is ghp_${F36} valid?`]: 'yes' },
      },
      n: 3,
      ok: true,
      none: null,
    };
    const out = scrubValue(input);
    expect(out).toEqual({
      type: 'tool_use',
      input: {
        command: 'AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key] aws s3 ls',
        env: [{ name: 'X', value: '[REDACTED:github-token]' }],
        answers: { 'is [REDACTED:github-token] valid?': 'yes' },
      },
      n: 3,
      ok: true,
      none: null,
    });
    // The input is not modified.
    expect(input.input.env[0]?.value).toBe(`ghp_${F36}`);
  });

  it('redacts the whole value of a key that names a secret, whatever its type', () => {
    const out = scrubValue({
      password: 'hunter2',
      headers: { Authorization: 'Bearer abc', 'Content-Type': 'application/json' },
      apiKey: 12345678,
      credentials: { user: 'app', pass: 'x' },
      tokens: ['a', 'b'],
      client_secret: ['x'],
      isSecret: true,
      token: null,
      usage: { input_tokens: 10, max_tokens: 1024 },
    });
    expect(out).toEqual({
      password: SECRET_FIELD_MARKER,
      headers: { Authorization: SECRET_FIELD_MARKER, 'Content-Type': 'application/json' },
      apiKey: SECRET_FIELD_MARKER,
      credentials: SECRET_FIELD_MARKER,
      tokens: ['a', 'b'],
      client_secret: SECRET_FIELD_MARKER,
      isSecret: true,
      token: null,
      usage: { input_tokens: 10, max_tokens: 1024 },
    });
  });

  it('passes primitives through and survives __proto__ keys and cycles', () => {
    expect(scrubValue(42)).toBe(42);
    expect(scrubValue(null)).toBe(null);
    expect(scrubValue(undefined)).toBe(undefined);
    expect(scrubValue('AKIAFAKEFAKEFAKE1234')).toBe('[REDACTED:aws-access-key]');
    const parsed = JSON.parse('{"__proto__": {"password": "x"}, "a": 1}') as unknown;
    const out = scrubValue(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({
      password: SECRET_FIELD_MARKER,
    });
    const cyclic: Record<string, unknown> = { a: 'AKIAFAKEFAKEFAKE1234' };
    cyclic.self = cyclic;
    expect(scrubValue(cyclic)).toEqual({ a: '[REDACTED:aws-access-key]', self: '[Circular]' });
  });
});

describe('fixture session fixtures/secrets', () => {
  const files = FIXTURE_FILES.map((rel) => ({ rel, text: readFixture(rel) }));

  it('plants at least one value per pattern, and every value is really in the fixture', () => {
    for (const name of PATTERN_NAMES) {
      expect(
        PLANTED.some((s) => s.pattern === name),
        `secrets.json has no entry for ${name}`,
      ).toBe(true);
    }
    const all = files.map((f) => f.text).join('\n');
    for (const s of PLANTED) {
      expect(PATTERN_NAMES, `unknown pattern in secrets.json: ${s.pattern}`).toContain(s.pattern);
      expect(all.includes(s.value), `${s.pattern} value not planted: ${s.value}`).toBe(true);
    }
  });

  it('has the 2.1.x layout: sub-agent linked by toolUseResult.agentId and meta toolUseId', () => {
    const main =
      files[0]?.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>) ?? [];
    const meta = JSON.parse(files[2]?.text ?? '{}') as { toolUseId?: string };
    const spawn = main.find(
      (r) => (r.toolUseResult as { agentId?: string } | undefined)?.agentId === AGENT_ID,
    );
    expect(spawn).toBeDefined();
    const block = (spawn?.message as { content: { tool_use_id: string }[] }).content[0];
    expect(block?.tool_use_id).toBe(meta.toolUseId);
  });

  it('no planted value survives scrubValue, record by record', () => {
    for (const f of files) {
      const records = f.rel.endsWith('.jsonl')
        ? f.text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as unknown)
        : [JSON.parse(f.text) as unknown];
      records.forEach((r, i) => {
        assertNoLeak(JSON.stringify(scrubValue(r)), PLANTED, `${f.rel} record ${i + 1}`);
      });
    }
  });

  it('no planted value survives scrubText over the raw file text', () => {
    for (const f of files) assertNoLeak(scrubText(f.text), PLANTED, f.rel);
  });

  it('keeps the structure of records: ids, links, usage and timestamps are untouched', () => {
    for (const f of files.filter((x) => x.rel.endsWith('.jsonl'))) {
      for (const line of f.text.trim().split('\n')) {
        const r = JSON.parse(line) as Record<string, unknown>;
        const s = scrubValue(r) as Record<string, unknown>;
        expect(Object.keys(s)).toEqual(Object.keys(r));
        for (const k of ['uuid', 'parentUuid', 'sessionId', 'timestamp', 'agentId', 'requestId']) {
          expect(s[k], k).toEqual(r[k]);
        }
        const m = r.message as Record<string, unknown>;
        const sm = s.message as Record<string, unknown>;
        expect(sm.id).toEqual(m.id);
        expect(sm.usage).toEqual(m.usage);
      }
    }
  });

  it('scrubbing is idempotent on the fixture', () => {
    for (const f of files) {
      const once = scrubText(f.text);
      expect(scrubText(once)).toBe(once);
    }
  });
});

// Secrets whose value alone identifies them (a token format). Context-dependent ones
// (passwords after a key, PEM bodies) are covered through SAMPLES, which carry their context.
const SELF_IDENTIFYING = new Set([
  'aws-access-key',
  'aws-session-token',
  'github-token',
  'gitlab-token',
  'slack-token',
  'stripe-key',
  'anthropic-api-key',
  'openai-api-key',
  'google-api-key',
  'google-oauth-token',
  'huggingface-token',
  'pypi-token',
  'npm-token',
  'jwt',
]);

// Seeded so CI is reproducible; CCOTEL_FUZZ_RUNS / CCOTEL_FUZZ_SEED (the project's fuzzing
// knobs) scale a local run up or replay one.
const envRuns = Number(process.env.CCOTEL_FUZZ_RUNS ?? '');
const envSeed = Number(process.env.CCOTEL_FUZZ_SEED ?? '');
function fuzzParams(base: number): { numRuns: number; seed: number } {
  return {
    numRuns: Number.isInteger(envRuns) && envRuns > 0 ? envRuns : base,
    seed:
      Number.isInteger(envSeed) && process.env.CCOTEL_FUZZ_SEED !== undefined
        ? envSeed
        : 20_260_820,
  };
}

const SEPARATORS = [' ', '\n', '\t', '\r\n', ' "', '" ', "' ", '\n\n'];

describe('properties', () => {
  const sep = fc.constantFrom(...SEPARATORS);
  const anyText = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );

  it('a secret in random surrounding text never survives', () => {
    const tokens = PLANTED.filter((s) => SELF_IDENTIFYING.has(s.pattern)).map((s) => ({
      ...s,
      text: s.value,
    }));
    const cases = [
      ...SAMPLES.map((s) => ({ pattern: s.pattern, value: s.value, text: s.text })),
      ...tokens,
    ];
    fc.assert(
      fc.property(fc.constantFrom(...cases), anyText, sep, sep, anyText, (c, a, s1, s2, b) => {
        const out = scrubText(a + s1 + c.text + s2 + b);
        if (out.includes(c.value)) throw new Error(`${c.pattern} leaked: ${JSON.stringify(out)}`);
      }),
      fuzzParams(3000),
    );
  });

  // Fragments that sit on the edges of the patterns: keys, separators, quotes, prefixes, markers.
  const FRAGMENTS = [
    'password',
    'token',
    'secret',
    'api_key',
    'auth',
    '=',
    ':',
    '"',
    "'",
    ' ',
    '\n',
    '\\',
    '`',
    'AKIA',
    'FAKEFAKEFAKE1234',
    'sk-',
    'sk-ant-api03-',
    'eyJ',
    'abc',
    'ABC123',
    '.',
    '-',
    '--',
    '-u ',
    '_',
    '@',
    '://',
    'https',
    '-----BEGIN RSA PRIVATE KEY-----',
    '-----END RSA PRIVATE KEY-----',
    '-----',
    'Bearer ',
    'Authorization',
    'Cookie',
    'login ',
    'password ',
    ' is ',
    '[REDACTED:x]',
    '[',
    ']',
    'ghp_',
    'github_pat_',
    'glpat-',
    'xoxb-',
    'hooks.slack.com/services/',
    'npm_',
    'AIza',
    '0123456789abcdefghijKLMNOP',
    AWS_SECRET,
    ',',
    ';',
    '(',
    ')',
    '{',
    '}',
    '$',
    '=>',
    ':=',
    '==',
    'hf_',
    'pypi-AgE',
    'ya29.',
    'x',
  ];
  const edgy = fc
    .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 4 })), { maxLength: 30 })
    .map((parts) => parts.join(''));

  it('scrubbing twice is the same as scrubbing once', () => {
    fc.assert(
      fc.property(fc.oneof(edgy, fc.string(), fc.string({ unit: 'binary' })), (s) => {
        const once = scrubText(s);
        expect(scrubText(once)).toBe(once);
      }),
      fuzzParams(5000),
    );
  });

  it('scrubValue is idempotent on random JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const once = scrubValue(v);
        expect(scrubValue(once)).toEqual(once);
      }),
      fuzzParams(500),
    );
  });

  it('stays linear on pathological repetitions (no catastrophic backtracking)', () => {
    // A quadratic pattern would take minutes on 100k characters; the test timeout catches it.
    // Timing is deliberately not asserted (CI machines vary).
    const UNITS = [
      'a',
      '=',
      '-',
      ' ',
      ':',
      '@',
      '"',
      '\\',
      'eyJ',
      'eyJab.',
      'password=',
      'password="',
      'token',
      'token "',
      'ab://',
      'ab://x:',
      'github_pat_',
      'sk-',
      'sk-A',
      'Authorization: ',
      'Bearer ',
      'Bearer A',
      '-u a:',
      'login a password ',
      '--token ',
      'password:=> ',
      'AKIA',
      'xoxb-',
      '-----BEGIN RSA PRIVATE KEY-----',
      'a-',
      'hooks.slack.com/services/',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...UNITS),
        fc.integer({ min: 10_000, max: 100_000 }),
        fc.constantFrom('', 'x', '"', '\n'),
        (unit, chars, tail) => {
          const text = unit.repeat(Math.ceil(chars / unit.length)) + tail;
          const out = scrubText(text);
          expect(scrubText(out)).toBe(out);
        },
      ),
      // Fixed count: each run scrubs up to 100k characters twice.
      { numRuns: 60, seed: fuzzParams(0).seed },
    );
  });

  it('handles a 5 MB tool output and still finds a secret at its very end', () => {
    const chunk =
      '     1→import { token } from "../../auth.js"; // see https://example.com/docs?x=1\n' +
      'drwxr-xr-x  2 dev dev 4096 Aug 20 10:00 src/core/spans/scrub.ts uuid 38de8ad0-4252-46b7-8ae6-9c8b1ca0033c\n';
    const big =
      chunk.repeat(Math.ceil(5_000_000 / chunk.length)) + `\nAKIAFAKEFAKEFAKE1234 ghp_${F36}\n`;
    expect(big.length).toBeGreaterThan(5_000_000);
    const out = scrubText(big);
    expect(out).not.toContain('AKIAFAKEFAKEFAKE1234');
    expect(out).not.toContain(`ghp_${F36}`);
    expect(out.endsWith('\n[REDACTED:aws-access-key] [REDACTED:github-token]\n')).toBe(true);
  });

  it('handles multi-megabyte single values (quoted, unquoted, PEM body) without stack errors', () => {
    const long = 'x'.repeat(3_000_000);
    expect(scrubText(`password="${long}\\"${long}"`)).toBe(
      'password="[REDACTED:secret-assignment]"',
    );
    expect(scrubText(`token=${long}`)).toBe('token=[REDACTED:secret-assignment]');
    expect(scrubText(`-----BEGIN PRIVATE KEY-----\n${'a-'.repeat(1_000_000)}`)).toBe(
      '-----BEGIN PRIVATE KEY-----[REDACTED:pem-private-key]',
    );
  });
});

// scrubText returns a text untouched when mayHoldSecret fails: that is exact only if every
// pattern's hint implies it. Checked on every string of the fixtures and on random strings
// built from the hints' literals (whole, cut, in either case) and noise.
describe('mayHoldSecret, the precheck before the patterns', () => {
  const HINT_LITERALS = [
    'PRIVATE KEY-----',
    'PGP PRIVATE KEY BLOCK-----',
    'access_key',
    'accesskey',
    'AKIA',
    'ASIA',
    'ABIA',
    'ACCA',
    'AGPA',
    'AIDA',
    'AIPA',
    'ANPA',
    'ANVA',
    'AROA',
    'APKA',
    'ASCA',
    'A3TZ',
    'A3T7',
    'IQoJb3JpZ2lu',
    'ZXIvYXdz',
    'ghp_',
    'gho_',
    'ghu_',
    'ghs_',
    'ghr_',
    'github_pat_',
    'glpat-',
    'glab-',
    'glabcde-',
    'xox',
    'xapp-',
    'hooks.slack.com/',
    '_live_',
    '_test_',
    'whsec_',
    'sk-ant-',
    'sk-',
    'AIza',
    'ya29.',
    'GOCSPX-',
    'hf_',
    'pypi-AgE',
    'npm_',
    'eyJ',
    '://',
    'authorization',
    'cookie',
    'earer',
    '-u',
    '--cookie',
    'curl',
    '-b',
    'mysql',
    'mariadb',
    '-p',
    'sshpass',
    'login',
    'password',
    'pass',
    'secret',
    'token',
    'key',
    'auth',
    'credential',
    'pwd',
    '-',
    '.',
    '/',
    '_',
    ':',
  ];
  const flipCase = (t: string, mask: number): string =>
    [...t].map((c, i) => ((mask >> (i % 30)) & 1 ? c.toUpperCase() : c.toLowerCase())).join('');
  const piece = fc.oneof(
    fc.constantFrom(...HINT_LITERALS),
    fc
      .tuple(fc.constantFrom(...HINT_LITERALS), fc.nat(30), fc.nat(30))
      .map(([t, a, b]) => t.slice(Math.min(a, b), Math.max(a, b))),
    fc.tuple(fc.constantFrom(...HINT_LITERALS), fc.nat()).map(([t, m]) => flipCase(t, m)),
    fc.string({ maxLength: 4 }),
  );

  it('holds wherever a hint holds: random strings from the hint literals', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        if (someHintHolds(text)) expect(mayHoldSecret(text)).toBe(true);
        if (!mayHoldSecret(text)) expect(scrubText(text)).toBe(text);
      }),
      { numRuns: 20_000 },
    );
  });

  it('holds wherever a hint holds: every string of the secrets fixture', () => {
    const strings: string[] = [];
    const collect = (v: unknown): void => {
      if (typeof v === 'string') strings.push(v);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (typeof v === 'object' && v !== null)
        for (const [k, x] of Object.entries(v)) {
          strings.push(k);
          collect(x);
        }
    };
    for (const file of FIXTURE_FILES) {
      const text = readFixture(file);
      strings.push(text);
      const lines = file.endsWith('.jsonl') ? text.split('\n') : [text];
      for (const line of lines) if (line.trim() !== '') collect(JSON.parse(line) as unknown);
    }
    for (const s of SAMPLES) strings.push(s.text);
    strings.push(...FALSE_POSITIVES, ...PLANTED.map((p) => p.value));
    let skipped = 0;
    for (const text of strings) {
      if (someHintHolds(text)) expect(mayHoldSecret(text), text).toBe(true);
      if (!mayHoldSecret(text)) skipped += 1;
    }
    // The precheck must also be worth having: ordinary strings (ids, times) fail it.
    expect(strings.length).toBeGreaterThan(500);
    expect(skipped).toBeGreaterThan(strings.length / 4);
  });
});
