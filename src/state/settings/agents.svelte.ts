import { asAgentId, createDefaultAgent, DEFAULT_AGENT_ID, type Agent } from '../../core/model';
import type { AgentStore } from '../../core/ports';
import type { NoticesState } from '../shell/notices.svelte';
import type { WatchList } from '../chat/sessions.svelte';

export interface AgentsDeps {
  store: AgentStore;
  watchAgents: WatchList<Agent>;
  notices: NoticesState;
  newId(): string;
  now(): number;
}

/** The agents screen and the composer's agent picker: the built-in agent plus stored ones. */
export class AgentsState {
  stored = $state<Agent[]>([]);
  private readonly builtIn: Agent = createDefaultAgent(0);
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: AgentsDeps) {
    this.unsubscribe = deps.watchAgents(
      (agents) => {
        this.stored = agents;
      },
      (error) => deps.notices.report(error, 'Could not load your agents'),
    );
  }

  /** The built-in agent first (unless a stored copy overrides it), then the rest by name. */
  readonly agents: Agent[] = $derived([
    this.stored.find((a) => a.id === DEFAULT_AGENT_ID) ?? this.builtIn,
    ...this.stored.filter((a) => a.id !== DEFAULT_AGENT_ID).sort((a, b) => a.name.localeCompare(b.name)),
  ]);

  find(id: string | null): Agent {
    return this.agents.find((a) => a.id === id) ?? this.agents[0] ?? this.builtIn;
  }

  // The agent form's code comes with the Agents screen, which is where these are asked for.
  async create(): Promise<Agent | undefined> {
    const { createBlankAgent } = await import('./agent-form');
    const agent = createBlankAgent(asAgentId(this.deps.newId()), this.deps.now());
    return this.save(agent, 'Could not create the agent');
  }

  async save(agent: Agent, doing = 'Could not save the agent'): Promise<Agent | undefined> {
    try {
      await this.deps.store.put(agent);
      return agent;
    } catch (error) {
      this.deps.notices.report(error, doing);
      return undefined;
    }
  }

  async duplicate(agent: Agent): Promise<Agent | undefined> {
    const { duplicateAgent } = await import('./agent-form');
    return this.save(duplicateAgent(agent, asAgentId(this.deps.newId()), this.deps.now()), 'Could not duplicate the agent');
  }

  /** The built-in agent cannot be deleted; chats that used a deleted agent fall back to it. */
  async remove(agent: Agent): Promise<void> {
    if (agent.isBuiltIn || agent.id === DEFAULT_AGENT_ID) return;
    await this.deps.notices.guard('Could not delete the agent', () => this.deps.store.delete(agent.id));
    this.deps.notices.notify(`Deleted the agent "${agent.name}".`, {
      action: { label: 'Undo', run: () => void this.save(agent, 'Could not restore the agent') },
    });
  }

  dispose(): void {
    this.unsubscribe();
  }
}
