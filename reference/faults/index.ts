import { academicFaults } from './academic.ts';
import { answerSearchFaults } from './answer-search.ts';
import { authFaults } from './auth.ts';
import { classFaults } from './classes.ts';
import { driftFaults } from './drift.ts';
import { eventKnowledgeFaults } from './event-knowledge.ts';
import { hostileFaults } from './hostile.ts';
import { inputFaults } from './input.ts';
import { promiseFaults } from './promises.ts';
import { realFaults } from './real.ts';
import { releaseFaults } from './release.ts';
import { semanticFaults } from './semantic.ts';
import { similarityFaults } from './similarity.ts';
import type { Fault } from './types.ts';
import { urlPreviewFaults } from './url-preview.ts';
import { worldFaults } from './world.ts';

/**
 * A fresh fault catalogue. Some faults keep state (a rate-limit lockout, a date-less cache, held
 * hostile connections), so each server should build its own and call every `dispose` on close.
 */
export function createFaults(): Fault[] {
  return [
    ...academicFaults(),
    ...similarityFaults(),
    ...answerSearchFaults(),
    ...urlPreviewFaults(),
    ...eventKnowledgeFaults(),
    ...inputFaults(),
    ...semanticFaults(),
    ...worldFaults(),
    ...classFaults(),
    ...promiseFaults(),
    ...authFaults(),
    ...driftFaults(),
    ...realFaults(),
    ...releaseFaults(),
    ...hostileFaults(),
  ];
}

/** The fault catalogue served under `{url}/faults/<name>` (one shared instance; see createFaults). */
export const FAULTS: Fault[] = createFaults();
