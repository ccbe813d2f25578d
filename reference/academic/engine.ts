// The academic engine: interpret, evaluate, calchistogram and similarity over a seeded corpus, without HTTP.
import { Corpus, LAST_YEAR } from './corpus.ts';
import { calchistogram, evaluate, Matcher } from './evaluate.ts';
import { Interpreter, interpret } from './interpret.ts';
import { BadArgument, badArgument, type EngineResult } from './params.ts';
import { ConceptSpace, similarity } from './similarity.ts';

export type { EngineResult } from './params.ts';

/** Default server-side time budget of evaluate and calchistogram, in milliseconds. */
export const DEFAULT_TIME_BUDGET_MS = 1000;
/** Corpora up to this size build every index when the engine is created; larger ones build each on first use. */
export const EAGER_INDEX_LIMIT = 200_000;
/** Default compute deadline of similarity, in milliseconds. */
export const DEFAULT_SIMILARITY_DEADLINE_MS = 5000;

/** Real values from the corpus, for tests, examples and the server banner. */
export interface AcademicSamples {
  /** An author whose canonical name has a synonym, e.g. canonical 'jaime teevan', synonym 'j teevan'. */
  author: { canonical: string; synonym: string; auId: number };
  /** A canonical name written with initials whose synonym is the full name (canonical 'j l green', synonym 'jaime green'). */
  initialsAuthor: { canonical: string; synonym: string };
  authors: string[];
  titleWords: string[];
  titles: string[];
  fields: string[];
  journals: string[];
  conferences: string[];
  affiliations: string[];
  years: number[];
  paperIds: number[];
  dois: string[];
  /** Expressions that match at least one paper. */
  expressions: string[];
  /** Queries that interpret answers with at least one interpretation. */
  queries: string[];
}

/** The operations of the academic group; params are the merged query or form fields. */
export interface AcademicEngine {
  interpret(params: Record<string, string>): EngineResult;
  evaluate(params: Record<string, string>): EngineResult;
  calchistogram(params: Record<string, string>): EngineResult;
  /** 200 with a bare number, 400 without s1/s2, 408 when the compute exceeds similarityDeadlineMs. */
  similarity(params: Record<string, string>): EngineResult;
  samples(): AcademicSamples;
}

/** Options of the engine: corpus seed and size, and the time limits. */
export interface AcademicEngineOptions {
  seed: number;
  papers: number;
  timeBudgetMs?: number;
  similarityDeadlineMs?: number;
}

function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    if (value === undefined) value = build();
    return value;
  };
}

// Parameter problems become 400s; anything else is a bug and is left for the HTTP layer to report.
function guarded(run: () => EngineResult): EngineResult {
  try {
    return run();
  } catch (error) {
    if (error instanceof BadArgument) return badArgument(error.message);
    throw error;
  }
}

/** Builds the corpus for `seed`/`papers` and returns the engine answering over it. */
export function createAcademicEngine(options: AcademicEngineOptions): AcademicEngine {
  const corpus = new Corpus({ seed: options.seed, papers: options.papers });
  const matcher = new Matcher(corpus, options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS);
  const deadlineMs = options.similarityDeadlineMs ?? DEFAULT_SIMILARITY_DEADLINE_MS;
  // The interpreter, the concept space and the samples are built on first use, or right away (with every
  // index) for corpora up to EAGER_INDEX_LIMIT so that no request of the default server pays for them.
  const interpreter = once(() => new Interpreter(corpus, matcher));
  const concepts = once(() => new ConceptSpace(corpus));
  const samples = once(() => buildSamples(corpus));
  if (corpus.size <= EAGER_INDEX_LIMIT) {
    corpus.buildIndexes();
    interpreter();
    concepts();
  }
  return {
    interpret: (params) => guarded(() => interpret(interpreter(), params)),
    evaluate: (params) => guarded(() => evaluate(matcher, params)),
    calchistogram: (params) => guarded(() => calchistogram(matcher, params)),
    similarity: (params) => guarded(() => similarity(concepts(), params, deadlineMs)),
    samples,
  };
}

function buildSamples(corpus: Corpus): AcademicSamples {
  const top = Array.from({ length: Math.min(corpus.size, 5) }, (_, doc) => corpus.byRank[doc]!);
  const first = corpus.authorName[0]!;
  const second = corpus.authorName[1]!;
  const author = {
    canonical: corpus.authorNames.values[first]!,
    synonym: corpus.authorNames.synonymsOf(first)[0]!,
    auId: corpus.auId(0),
  };
  const initialsAuthor = {
    canonical: corpus.authorNames.values[second]!,
    synonym: corpus.authorNames.synonymsOf(second)[0]!,
  };
  const authors = [
    ...new Set(
      Array.from(
        { length: Math.min(corpus.authorCount, 8) },
        (_, a) => corpus.authorNames.values[corpus.authorName[a]!]!,
      ),
    ),
  ];
  const g0 = top[0]!;
  const dois = top.map((g) => corpus.doi(g)).filter((d): d is string => d !== undefined);
  const year = corpus.year[g0]!;
  // The sample author's most recent year, so that "Y > latest - 1" is a combination known to match.
  let latest = year;
  for (let g = 0; g < corpus.size; g++) {
    for (let i = corpus.authOff[g]!; i < corpus.authOff[g + 1]!; i++) {
      if (corpus.authAuthor[i] === 0) latest = Math.max(latest, corpus.year[g]!);
    }
  }
  return {
    author,
    initialsAuthor,
    authors,
    titleWords: [...new Set(top.flatMap((g) => corpus.uniqueWords(g).map((w) => corpus.words[w]!)))]
      .filter((w) => w.length > 3)
      .slice(0, 8),
    titles: top.map((g) => corpus.title(g)),
    fields: corpus.fields.values.slice(0, 5),
    journals: corpus.journals.values.slice(0, 3),
    conferences: corpus.conferences.values.slice(0, 3),
    affiliations: corpus.affiliations.values.slice(0, 3),
    years: [year, LAST_YEAR - 5, LAST_YEAR],
    paperIds: top.map((g) => corpus.id[g]!),
    dois,
    expressions: [
      `Composite(AA.AuN=='${author.canonical}')`,
      `Composite(AA.AuN='${author.synonym}')`,
      `And(Composite(AA.AuN=='${author.canonical}'),Y>${latest - 1})`,
      `Ti='${corpus.title(g0)}'`,
      `Id=${corpus.id[g0]}`,
      `Y=${year}`,
      `Composite(F.FN=='${corpus.fields.values[0]}')`,
      `Or(Id=${corpus.id[g0]},Id=${corpus.id[top[1] ?? g0]})`,
    ],
    queries: [
      `papers by ${author.canonical}`,
      `papers by ${author.synonym}`,
      `papers by ${author.canonical} after ${latest - 1}`,
      `${corpus.fields.values[0]} papers`,
    ],
  };
}
