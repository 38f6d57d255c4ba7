import type { Agent, ModelRef, Project, ProjectId } from '../../core/model';

/**
 * The project a new chat starts in: its first message creates the session there. Kept apart
 * from the projects' state, which the project screen fetches on first use, since the composer
 * and the sidebar need it from the start.
 */
export class NewChatProject {
  projectId = $state<ProjectId | null>(null);
}

/**
 * "New chat in this project": the next first message creates its session in the project, with
 * the project's default model and agent picked in the composer.
 */
export async function startProjectChat(
  project: Project,
  deps: {
    newChat: NewChatProject;
    goToNewChat(): void;
    /** Resolves once the composer followed the new (empty) chat. */
    settle(): Promise<void>;
    composer: { setModels(models: ModelRef[]): Promise<void>; setAgent(agent: Agent, available: ModelRef[]): Promise<void> };
    agents: { find(id: string | null): Agent };
    available: ModelRef[];
  },
): Promise<void> {
  deps.newChat.projectId = project.id;
  deps.goToNewChat();
  await deps.settle();
  if (project.defaultAgentId) await deps.composer.setAgent(deps.agents.find(project.defaultAgentId), deps.available);
  const model = project.defaultModel;
  if (model && deps.available.some((m) => m.providerId === model.providerId && m.modelId === model.modelId)) {
    await deps.composer.setModels([model]);
  }
}
