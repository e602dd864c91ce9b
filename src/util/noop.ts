/**
 * Does nothing. One module function for every place that needs a callback or a placeholder that
 * does nothing (progress nobody listens to, a member assigned later): no closure per call, and
 * none named per call by the build's `keepNames` (docs/hot-paths.md).
 */
export function noop(): void {}
