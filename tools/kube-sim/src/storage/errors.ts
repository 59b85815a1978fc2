// The storage layer's own refusal: a resourceVersion this store never reached (kube-apiserver's 504
// ResourceVersionTooLarge, on which client-go relists).
import { ApiError } from '../apimachinery/types.ts';

export function tooLargeResourceVersion(rv: number, current: number): ApiError {
  return new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', field: '', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}
