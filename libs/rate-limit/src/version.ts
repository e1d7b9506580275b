/** The library's version, as in its package.json (a unit test keeps the two equal). */
export const LIBRARY_VERSION = '0.2.0';
