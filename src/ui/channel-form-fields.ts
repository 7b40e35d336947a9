import type { ChannelKind } from "../core/channels.ts";

/**
 * The dashboard's form for each kind of channel, as data: the fields a channel of that kind is created with
 * (the same names the API takes), how each is typed in, and the words next to it. Secret fields are password
 * inputs, so a secret typed in is not left on the screen.
 */

export interface ChannelFormField {
  name: string;
  label: string;
  input: "text" | "url" | "email" | "number" | "password" | "select" | "list";
  required?: boolean;
  placeholder?: string;
  /** The choices of a select, the first being the default. */
  options?: readonly string[];
  /** Words under the field. */
  help?: string;
}

/** What each kind is called on the dashboard. */
export const KIND_LABELS: Record<ChannelKind, string> = {
  email: "Email (SMTP)",
  slack: "Slack",
  discord: "Discord",
  teams: "Microsoft Teams",
  matrix: "Matrix",
  ntfy: "ntfy",
  gotify: "Gotify",
};

const webhookUrl = (where: string, placeholder: string): ChannelFormField[] => [
  {
    name: "url",
    label: `${where} URL`,
    input: "password",
    required: true,
    placeholder,
    help: "It carries its own token: it is kept secret and never shown again.",
  },
];

export const CHANNEL_FORM_FIELDS: Record<ChannelKind, ChannelFormField[]> = {
  email: [
    { name: "host", label: "SMTP server", input: "text", required: true, placeholder: "smtp.example.com" },
    {
      name: "security",
      label: "Security",
      input: "select",
      options: ["starttls", "tls", "none"],
      help: "starttls (port 587), tls (port 465), none (port 25, trusted networks only)",
    },
    { name: "port", label: "Port (optional)", input: "number", help: "Default: 587, 465 or 25 by the security chosen." },
    { name: "username", label: "User name (optional)", input: "text" },
    { name: "password", label: "Password (optional)", input: "password", help: "Kept secret: never shown again." },
    { name: "from", label: "From", input: "email", required: true, placeholder: "linkpatrol@example.com" },
    { name: "to", label: "To", input: "list", required: true, placeholder: "webmaster@example.com", help: "One address per line, or separated by commas." },
  ],
  slack: webhookUrl("Incoming webhook", "https://hooks.slack.com/services/…"),
  discord: webhookUrl("Channel webhook", "https://discord.com/api/webhooks/…"),
  teams: webhookUrl("Workflows webhook", "https://…logic.azure.com/workflows/…"),
  matrix: [
    { name: "homeserver", label: "Homeserver", input: "url", required: true, placeholder: "https://matrix.example.org" },
    {
      name: "room_id",
      label: "Room id",
      input: "text",
      required: true,
      placeholder: "!abcdef:example.org",
      help: "The room's id (Room settings → Advanced), not its alias.",
    },
    { name: "access_token", label: "Access token", input: "password", required: true, help: "The bot user's token: kept secret, never shown again." },
  ],
  ntfy: [
    { name: "server_url", label: "Server", input: "url", placeholder: "https://ntfy.sh", help: "Empty: https://ntfy.sh" },
    { name: "topic", label: "Topic", input: "password", required: true, help: "Anyone who knows a topic on a public server can read it: kept secret." },
    { name: "token", label: "Access token (optional)", input: "password" },
  ],
  gotify: [
    { name: "server_url", label: "Server", input: "url", required: true, placeholder: "https://gotify.example.com" },
    { name: "token", label: "Application token", input: "password", required: true, help: "Kept secret: never shown again." },
  ],
};

/** The form's values as the API's body fields: empty optional fields left out, numbers and lists parsed. */
export function channelFieldsFromForm(kind: ChannelKind, form: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of CHANNEL_FORM_FIELDS[kind]) {
    const raw = typeof form[field.name] === "string" ? (form[field.name] as string).trim() : "";
    if (raw === "") continue;
    if (field.input === "number") fields[field.name] = /^\d{1,5}$/.test(raw) ? Number(raw) : raw;
    else if (field.input === "list") fields[field.name] = raw.split(/[\s,;]+/).filter((item) => item !== "");
    else fields[field.name] = raw;
  }
  return fields;
}
