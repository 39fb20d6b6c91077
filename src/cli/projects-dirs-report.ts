// The `config check` lines that say which projects dirs are read and why:
// the default locations with what was found there, or the dirs given instead.
import { statOrNull } from '../adapters/files/session-files.js';
import { projectsDirCandidates } from '../adapters/files/projects-dir.js';
import type { Source } from '../core/settings.js';
import { terminalText } from '../core/view/terminal-text.js';
import { displayWidth } from '../app/show/render/text-width.js';

export interface ProjectsDirReport {
  path: string;
  why: string;
  /** read | missing | same as <path> */
  state: string;
}

export function projectsDirsReport(
  dirs: string[],
  source: Source,
  env: NodeJS.ProcessEnv,
): ProjectsDirReport[] {
  if (source === 'flag' || source === 'file') {
    const why = source === 'flag' ? '--projects-dir' : 'config file';
    return dirs.map((path) => ({
      path,
      why,
      state: statOrNull(path)?.isDirectory() === true ? 'read' : 'missing',
    }));
  }
  return projectsDirCandidates(env).map((c) => ({
    path: c.path,
    why: c.why,
    state: !c.found ? 'missing' : c.sameAs !== null ? `same as ${c.sameAs}, read once` : 'read',
  }));
}

export function renderProjectsDirsReport(report: ProjectsDirReport[]): string {
  const paths = report.map((r) => terminalText(r.path));
  const width = Math.max(...paths.map(displayWidth));
  const lines = report.map((r, i) => {
    const path = paths[i] ?? '';
    const pad = ' '.repeat(width - displayWidth(path));
    return `  ${path}${pad}  ${terminalText(r.state)}  [${r.why}]\n`;
  });
  return `projects dirs:\n${lines.join('')}`;
}
