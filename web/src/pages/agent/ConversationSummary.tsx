import type { Conversation } from './agent-types.ts';
import { modelName, profileName, useAgentChoices } from './useAgentChoices.ts';

/**
 * How an open conversation works, in words: automatic or manual with its model's name, and its
 * assistant profile. The API fixes these when the conversation is created; they are shown, not edited.
 */
export function ConversationSummary(props: { conversation: Conversation }) {
  const { conversation } = props;
  const choices = useAgentChoices();
  const model = conversation.mode === 'manual' && conversation.selectedModelId ? modelName(choices.data?.models, conversation.selectedModelId) : undefined;
  return (
    <p className="small agent-conversation-summary" data-testid="conversation-summary">
      <span data-testid="conversation-mode">{model ? `Manual: ${model}` : 'Automatic model choice'}</span>
      {conversation.profileId ? <span data-testid="conversation-profile"> · Profile: {profileName(choices.data?.profiles, conversation.profileId)}</span> : null}
    </p>
  );
}
