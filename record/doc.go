// Package record owns everything about a finished run: the types of its
// files (Metadata is run.json, with the Provenance that decides what two
// runs can be compared with; Grading is grading.json), Run and Suite, the
// values the orchestrator returns and ReadRun and ReadSuite read back,
// RunVerdict, the one rule for a run's verdict, and RunRow, the one row a
// suite table shows per run. It is also the on-disk format: where runs
// and suites live under a runs root, the files of each, how they are
// written (atomically, capped, sealed) and how they are read back.
//
// A run directory is
//
//	<root>/<slug(caseId)>/<slug(driver)>/<timestamp>[-N]/
//	    case.json       the case as authored, frozen, with its casePath
//	    run.json        Metadata: exit reason, timings, usage, provenance
//	    events.jsonl    the trajectory, one lux.Event per line, append-only
//	    grading.json    Grading
//	    artifacts.json  []lux.Artifact
//	    stderr.log      the agent's standard error (capped; absent when empty)
//	    seal.json       the seal: each file's SHA-256, and an HMAC of them
//	    artifacts/      the agent's workspace: fixtures staged, files it left
//
// (the workspace lives under <root>/.live while the agent runs, and moves
// here once it is stopped; see ReserveLiveDir, NewEvidence and VerifyEvidence)
//
// and a suite directory is
//
//	<root>/.suites/<timestamp>[-N]/
//	    suite.json          SuiteManifest: every item and its status
//	    suite-summary.json  SuiteSummary: totals, per-case outcomes, metrics, samples
//	    seal.json           the seal of both
//
// The timestamp is UTC with millisecond precision and no colons, such as
// 2025-01-02T03-04-05-678Z; -N (2, 3, ...) keeps two runs that start in the
// same millisecond apart. Directories are created 0700 and files 0600.
//
// A file that is rewritten (run.json by a retry or a regrading, a suite's
// files, every seal.json) is written atomically: a temporary file in the
// same directory renamed into place (see Writer), so a crash never leaves
// it half-written. A run's directory is a run only once it holds run.json,
// which the harness writes once, last, after every other file of the
// record and before its seal; the files written once before it (case.json,
// artifacts.json, grading.json) are written in place (Writer.CreateJSONSum),
// so a crash can leave them half-written only in a directory no reader
// takes for a run. A run graded again later keeps its grading.json and
// gets gradings/<timestamp>[-N].json (see Regrading). Readers ignore fields
// they do not know, so records written by a newer version stay readable, and their errors name the file and what is
// wrong with it.
//
// # Seals
//
// A runs root has a secret key, <root>/.lux-seal/key (see OpenSealKey;
// SealKeyDirOf names the directory a sandbox must deny to agents). Every
// record the harness writes ends with its seal.json (Writer.SealRun,
// Writer.WriteSealed): the SHA-256 of each record file and an HMAC-SHA256
// of them under the key.
// The readers of this package check each file they read against it
// (VerifySeal checks them all) and refuse a record that changed with an
// error wrapping ErrSealBroken naming the directory and the file; a seal
// that cannot be checked (no key found in the directories above the
// record, a file that is not a key, another key) wraps ErrSealKey. A record
// made before sealing existed reads as SealUnsealed, never as verified,
// unless it is complete and dated after its root's key: its seal was
// removed. The artifacts' content is covered through run.json's Evidence
// (VerifyEvidence). The key is kept in the runs root, not in $HOME, so a
// root copied whole keeps verifying.
//
// Reading is cheap by default: [ReadRun] does not load events.jsonl (use
// [Run.LoadEvents] or [ReadEvents]), and [ReadMetadata] reads only run.json
// and grading.json. [IdentityHash] says whether two runs are repetitions of
// the same measurement. The repository's docs/suites-and-records.md
// describes the records, their evidence fingerprints and seals in full.
package record
