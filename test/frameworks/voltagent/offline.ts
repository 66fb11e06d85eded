// VoltAgent starts refreshing its model registry from models.dev when it is loaded outside
// production; the tests run without network. Imported before `@voltagent/core`.
process.env.NODE_ENV = 'production';
