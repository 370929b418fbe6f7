// The app's HTTP helper instance: channel from the device.
import { currentDevice } from "./device";
import { createHttp } from "./http";

export const http = createHttp({ channel: () => currentDevice().channel });
