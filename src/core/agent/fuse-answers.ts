/**
 * Fusing compared answers: after several models answered one question, a chosen model reads
 * their answers and writes one answer that keeps the best of each. The merged answer is stored
 * as another answer to the same question (a new branch), naming the answers it was made from.
 */
import type { AssistantMessage, ModelRef } from '../model';
import { answerText, labelFusedSource } from '../model';

/** One compared answer, as the merging model reads it. */
export interface FuseCandidate {
  messageId: AssistantMessage['id'];
  model?: ModelRef;
  text: string;
}

/** Citation markers of a compared answer point at sources the merging model does not see. */
const CITATION_MARKER = /\s?\[\d{1,3}(?:\s*,\s*\d{1,3})*\]/g;

/** The compared answers worth merging: finished or stopped with some text, in their order. */
export function selectFuseCandidates(answers: readonly AssistantMessage[]): FuseCandidate[] {
  return answers.flatMap((answer) => {
    const text = answerText(answer).trim();
    if (answer.status === 'error' || answer.status === 'streaming' || text === '') return [];
    return [{ messageId: answer.id, ...(answer.model ? { model: answer.model } : {}), text }];
  });
}


/**
 * The message the merging model answers: the question as asked, every candidate answer
 * fenced off by its label, and what to do with them. It takes the question's place in the
 * request, so the system prompt, agent and earlier history stay as they were for the others.
 */
export function buildFusePrompt(question: string, candidates: readonly FuseCandidate[]): string {
  const answers = candidates
    .map((candidate, index) => {
      const label = labelFusedSource(candidate, index);
      const text = candidate.text.replace(CITATION_MARKER, '').trim();
      return `<answer label="${label}">\n${text}\n</answer>`;
    })
    .join('\n\n');
  return [
    `Several assistants answered the same question. Merge their answers into one answer to the question.`,
    '',
    `<question>\n${question.trim()}\n</question>`,
    '',
    answers,
    '',
    [
      'Write the single best answer to the question, in the language of the question:',
      '- keep what is correct and useful from each answer, and drop repetition;',
      '- where the answers disagree, say so briefly and give the view best supported;',
      '- do not mention that you are merging answers, or name the assistants, unless the disagreement matters;',
      '- the answers cited sources you cannot see: do not write citation numbers such as [1].',
    ].join('\n'),
  ].join('\n');
}
