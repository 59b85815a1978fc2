// Label and field selectors, as k8s.io/apimachinery's labels and fields packages parse and match them:
// label-selectors.ts and field-selectors.ts, exported together for the list and watch paths.
export * from './label-selectors.ts';
export * from './field-selectors.ts';
