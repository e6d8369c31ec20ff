// Prints a demo user's access token, for use in shell commands:
//   curl -H "Authorization: Bearer $(npm run -s token -- rick@the-citadel.com)" localhost:3001/resource/x
//   npm run -s token -- beth@the-smiths.com --id-token
//   npm run -s token -- morty@the-citadel.com --json
import { loadConfig } from '../src/config';
import { loadDirectorySeed } from '../src/directory';
import { fetchToken, TokenRequestError, type TokenResponse } from './lib/fetch-token';
import { scriptCommand } from './lib/script-command';

interface Options {
  idToken?: boolean;
  json?: boolean;
  password?: string;
}

/** Fails with a message on stderr and a non-zero exit code; stdout stays empty. */
function fail(message: string, code = 1): never {
  process.stderr.write(`token: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  const program = scriptCommand(
    'npm run -s token --',
    'Signs a demo user in at the IdP and prints the access token (nothing else) on stdout.',
    'curl -H "Authorization: Bearer $(npm run -s token -- rick@the-citadel.com)" localhost:3001/resource/x',
  )
    .argument('<email>', 'the demo user, e.g. rick@the-citadel.com')
    .option('--id-token', 'print the ID token instead (never use it as a bearer token)')
    .option('--json', 'print the whole token response as JSON')
    .option('--password <password>', 'the password (default: the demo password of the directory seed)')
    .parse();
  const [email] = program.args;
  const options = program.opts<Options>();

  const config = loadConfig();
  const seed = loadDirectorySeed(config.directorySeedFile);
  let tokens: TokenResponse;
  try {
    tokens = await fetchToken(config.idp.url, email, options.password ?? seed.demoPassword);
  } catch (err) {
    if (!(err instanceof TokenRequestError)) throw err;
    if (err.status === 401) {
      // The IdP answers the same for both on purpose; the seed file tells them apart locally.
      const known = seed.directory.users.some((u) => u.email.toLowerCase() === email.toLowerCase());
      if (!known) fail(`unknown user ${email}. Demo users: ${seed.directory.users.map((u) => u.email).join(', ')}`);
      fail(`wrong password for ${email}`);
    }
    fail(err.message, err.status === undefined ? 2 : 1);
  }

  if (options.json) process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
  else process.stdout.write(`${options.idToken ? tokens.id_token : tokens.access_token}\n`);
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
