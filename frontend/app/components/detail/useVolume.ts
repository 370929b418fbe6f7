// One volume of a work by number for the detail page: from the detail when it
// lists it (no request, so works of up to 1,000 volumes are as they were),
// else, for a long work, from its page of /volumes.
import { useEffect, useState } from "react";
import { getVolumePage, type Detail, type Vol } from "~/utils/storeApi";
import { findVolume, trimmed, type PageFetcher } from "~/utils/volumes";

/** useVolume answers volume no of the detail's work, undefined while it is asked or when there is none. */
export function useVolume(detail: Detail, no: number | undefined, fetchPage: PageFetcher = getVolumePage): Vol | undefined {
  const own = no === undefined ? undefined : detail.volList.find((v) => v.no === no);
  const [asked, setAsked] = useState<Vol | undefined>(undefined);
  const wanted = no !== undefined && !own && trimmed(detail);
  useEffect(() => {
    if (!wanted) return;
    const ac = new AbortController();
    findVolume(detail, no, ac.signal, fetchPage).then(setAsked, () => setAsked(undefined));
    return () => ac.abort();
  }, [detail, no, wanted, fetchPage]);
  return own ?? (asked?.no === no ? asked : undefined);
}
