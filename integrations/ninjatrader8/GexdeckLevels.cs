// gexdeck levels for NinjaTrader 8: the indicator shell. It polls the dashboard's JSON feed on
// a background task (GexdeckLevelsCore.cs does the HTTP, JSON and model, culture-invariantly)
// and draws one labelled horizontal line per level in the dashboard's colours. When the feed is
// stale or failing, the lines turn grey and the chart says "not updating since HH:MM:SS"
// instead of leaving old lines that look live. The token is read from a file, never from a
// property (properties are printed in the chart's label).
#region Using declarations
using System;
using System.ComponentModel;
using System.ComponentModel.DataAnnotations;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using System.Windows.Media;
using NinjaTrader.Gui;
using NinjaTrader.Gui.Chart;
using NinjaTrader.NinjaScript;
using NinjaTrader.NinjaScript.DrawingTools;
using Gexdeck;
#endregion

namespace NinjaTrader.NinjaScript.Indicators
{
    public class GexdeckLevels : Indicator
    {
        private LevelsClient client;
        private CancellationTokenSource stop;
        private GexLevels shown;
        private string status = "gexdeck: connecting...";

        protected override void OnStateChange()
        {
            if (State == State.SetDefaults)
            {
                Name = "GexdeckLevels";
                Description = "Gamma levels from your gexdeck dashboard (/feed/v1/levels).";
                IsOverlay = true;
                IsSuspendedWhileInactive = false;
                DashboardUrl = "http://127.0.0.1:3000";
                Ticker = "SPX";
                Future = "ES";
                IntervalSeconds = 5;
                TokenFile = Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.MyDocuments),
                    "NinjaTrader 8", "gexdeck-token.txt");
            }
            else if (State == State.DataLoaded)
            {
                string token;
                try
                {
                    token = LevelsClient.ReadToken(TokenFile);
                }
                catch (Exception e)
                {
                    status = "gexdeck: cannot read the token file " + TokenFile + ": " + e.Message;
                    return;
                }
                string query = string.IsNullOrWhiteSpace(Future) ? "" : "future=" + Future.Trim().ToUpperInvariant();
                client = new LevelsClient(DashboardUrl, Ticker.Trim().ToUpperInvariant(), token, query);
                stop = new CancellationTokenSource();
                var cancel = stop.Token;
                Task.Run(async () =>
                {
                    while (!cancel.IsCancellationRequested)
                    {
                        await client.FetchAsync().ConfigureAwait(false);
                        if (client.Last != null) shown = client.Last;
                        status = client.StatusText(TimeZoneInfo.Local);
                        TriggerCustomEvent(o => Redraw(), null);
                        await Task.Delay(TimeSpan.FromSeconds(Math.Max(1, IntervalSeconds)), cancel)
                            .ContinueWith(t => { }).ConfigureAwait(false);
                    }
                });
            }
            else if (State == State.Terminated)
            {
                if (stop != null) stop.Cancel();
                if (client != null) client.Dispose();
            }
        }

        protected override void OnBarUpdate()
        {
        }

        private static Brush BrushOf(string kind, bool live)
        {
            if (!live) return Brushes.Gray;
            switch (kind)
            {
                case "zero": return new SolidColorBrush(Color.FromRgb(0xb4, 0x8c, 0xff));
                case "pos": return new SolidColorBrush(Color.FromRgb(0x2f, 0xbf, 0x71));
                case "neg": return new SolidColorBrush(Color.FromRgb(0xef, 0x5b, 0x5b));
                default: return new SolidColorBrush(Color.FromRgb(0x4d, 0xa3, 0xff));
            }
        }

        private void Redraw()
        {
            RemoveDrawObjects();
            var levels = shown;
            bool live = levels != null && client != null && client.LastResult != null && client.LastResult.Ok && !levels.Stale;
            if (levels != null)
            {
                foreach (var l in levels.Levels)
                {
                    if (l.Price == null) continue;
                    Draw.HorizontalLine(this, "gex_" + l.Id, l.Price.Value, BrushOf(l.Kind, live));
                    Draw.Text(this, "gex_label_" + l.Id, l.Label + " " + LevelsClient.Format(l.Price.Value),
                        0, l.Price.Value, BrushOf(l.Kind, live));
                }
            }
            Draw.TextFixed(this, "gex_status", status, TextPosition.BottomRight);
            ForceRefresh();
        }

        [NinjaScriptProperty]
        [Display(Name = "Dashboard URL", Order = 1, GroupName = "gexdeck")]
        public string DashboardUrl { get; set; }

        [NinjaScriptProperty]
        [Display(Name = "Ticker (SPX, NDX, ...)", Order = 2, GroupName = "gexdeck")]
        public string Ticker { get; set; }

        [NinjaScriptProperty]
        [Display(Name = "Convert to future (ES, NQ, RTY; empty = index prices)", Order = 3, GroupName = "gexdeck")]
        public string Future { get; set; }

        [NinjaScriptProperty]
        [Range(1, 3600)]
        [Display(Name = "Refresh every (seconds, min 1)", Order = 4, GroupName = "gexdeck")]
        public int IntervalSeconds { get; set; }

        [Browsable(false)]
        public string TokenFile { get; set; }
    }
}
