// Generated from openapi/openapi.yaml by openapi/compile-validators.ts (npm run openapi:generate). Do not edit.
import type { ValidateFunction } from 'ajv';
/** The SHA-256 of the openapi.yaml these validators were compiled from. */
export declare const SPEC_SHA256: string;
/** Response body validators by `operationId status mediaType`; null where the spec documents no schema. */
export declare const RESPONSE_VALIDATORS: Record<string, ValidateFunction | null>;
/** Request validators (query, pathParams, form; wire strings coerced) by operationId. */
export declare const REQUEST_VALIDATORS: Record<string, ValidateFunction>;
