// The watcher's writer and a worker's reader of one projection as one object, for the tests that fold
// and then read the same keys (as the two apps do, each with its own side).
import { ProjectionReader } from '../../src/projection-reader.ts';
import { ProjectionWriter, type ProjectionWriterOptions } from '../../src/projection-writer.ts';

export class ProjectionPair extends ProjectionWriter {
  readonly reader: ProjectionReader;

  constructor(opts: ProjectionWriterOptions) {
    super(opts);
    this.reader = new ProjectionReader(opts);
  }

  read(...args: Parameters<ProjectionReader['read']>): ReturnType<ProjectionReader['read']> {
    return this.reader.read(...args);
  }

  expect(...args: Parameters<ProjectionReader['expect']>): ReturnType<ProjectionReader['expect']> {
    return this.reader.expect(...args);
  }

  reserveCreates(
    ...args: Parameters<ProjectionReader['reserveCreates']>
  ): ReturnType<ProjectionReader['reserveCreates']> {
    return this.reader.reserveCreates(...args);
  }

  recordCreates(
    ...args: Parameters<ProjectionReader['recordCreates']>
  ): ReturnType<ProjectionReader['recordCreates']> {
    return this.reader.recordCreates(...args);
  }

  dropRefused(
    ...args: Parameters<ProjectionReader['dropRefused']>
  ): ReturnType<ProjectionReader['dropRefused']> {
    return this.reader.dropRefused(...args);
  }

  forgetExpectations(
    ...args: Parameters<ProjectionReader['forgetExpectations']>
  ): ReturnType<ProjectionReader['forgetExpectations']> {
    return this.reader.forgetExpectations(...args);
  }

  forget(...args: Parameters<ProjectionReader['forget']>): ReturnType<ProjectionReader['forget']> {
    return this.reader.forget(...args);
  }
}
