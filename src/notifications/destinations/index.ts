import type { ChannelKind } from "../../core/channels.ts";
import type { Destination } from "../destination.ts";
import { discord } from "./discord.ts";
import { email } from "./email.ts";
import { gotify } from "./gotify.ts";
import { matrix } from "./matrix.ts";
import { ntfy } from "./ntfy.ts";
import { slack } from "./slack.ts";
import { teams } from "./teams.ts";

/** Every destination by kind: one file each, behind one interface (destination.ts). */
export const DESTINATIONS: Record<ChannelKind, Destination> = { email, slack, discord, teams, matrix, ntfy, gotify };
