/** Package name, used as the tracer, meter and diag component name. */
export const PACKAGE_NAME = 'tool-loop-guard';
/** Package version (kept in step with package.json by a test). */
export const PACKAGE_VERSION = '0.1.0';
