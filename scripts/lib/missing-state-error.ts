import type { Config } from '../../src/config';
import { answersAs } from '../../src/stack/check-ports';
import { stackComponents } from '../../src/stack/components';
import { ScriptError } from './script-error';

/** What a script says when a running component's state file is gone. */
export const DATA_DIR_DELETED =
  'the stack is running but its data directory was deleted; restart the stack (Ctrl+C where it runs, then npm start)';

/** Whether the named Outpost component answers at its configured URL. */
export function isComponentRunning(config: Config, name: 'idp' | 'control-plane'): Promise<boolean> {
  const component = stackComponents(config).find((c) => c.name === name);
  return component ? answersAs(component, component.url) : Promise.resolve(false);
}

/**
 * A state file a component writes on its first start is missing. Before first start that
 * means "start it once"; with the component answering, the data directory was deleted
 * under it, and only a restart brings the two back in step — {@link explain} says which.
 */
export class MissingStateError extends ScriptError {
  constructor(
    readonly whenStopped: string,
    private readonly config: Config,
    private readonly writer: 'idp' | 'control-plane',
  ) {
    super(whenStopped);
  }

  /** The one line to print: checks whether the component that writes the file is running. */
  async explain(): Promise<string> {
    return (await isComponentRunning(this.config, this.writer)) ? DATA_DIR_DELETED : this.whenStopped;
  }
}
