import { useLoaderData } from "react-router";
import { AreaHome, areaLoader, areaMeta } from "~/components/product/AreaHome";

export const meta = areaMeta("comic");
export const clientLoader = areaLoader("comic");

export default function Screen() {
  return <AreaHome area="comic" home={useLoaderData<typeof clientLoader>()} />;
}
