import { useLoaderData } from "react-router";
import { AreaHome, areaLoader, areaMeta } from "~/components/product/AreaHome";

export const meta = areaMeta("webtoon");
export const clientLoader = areaLoader("webtoon");

export default function Screen() {
  return <AreaHome area="webtoon" home={useLoaderData<typeof clientLoader>()} />;
}
