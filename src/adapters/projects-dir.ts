// Where Claude Code keeps transcripts: --projects-dir, else
// $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultProjectsDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir !== undefined && configDir !== '') {
    return configDir.split(',').map((d) => join(d.trim(), 'projects'));
  }
  return [join(homedir(), '.claude', 'projects')];
}
