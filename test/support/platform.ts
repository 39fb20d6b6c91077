// What a suite needs of the host beyond Node, named once so that a suite that
// needs it skips elsewhere with the reason in its title: POSIX signals, file
// modes and symlinks (not Windows), Linux's /dev/full and /proc (not macOS).
export const ON_WINDOWS = process.platform === 'win32';
export const ON_LINUX = process.platform === 'linux';

/**
 * Why the suites that run the built CLI as a child process skip on Windows:
 * they hand it a POSIX environment (HOME as its home, no %USERPROFILE% nor
 * %SystemRoot%, PATH split at ':') and lay the default dirs out under it.
 */
export const POSIX_CHILD_ENV = 'skipped on Windows: runs the built CLI with a POSIX environment';
