// Only the Chart.js pieces the admin charts use, registered once. Imported
// dynamically by Chart.tsx, so Chart.js is a chunk of its own that only the
// admin screen loads.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from "chart.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend);

export { Chart };
