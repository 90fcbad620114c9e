<?php
/**
 * The chat widget on the front end: its script, its style and its
 * configuration.
 *
 * The configuration is data, not code: a `<script type="application/json"
 * id="rtac-config">` block printed right before the widget's script tag,
 * which browsers never execute, read by widget.js. So the widget runs under a
 * strict Content Security Policy (`script-src 'self'`, no 'unsafe-inline').
 * It is public (it is in every page), so it holds texts, contacts and the
 * REST URL only; the sidecar URL, site id and secret never leave the server.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Widget {

	const HANDLE    = 'rtac-widget';
	const CONFIG_ID = 'rtac-config';

	private Rtac_Settings $settings;

	public function __construct( Rtac_Settings $settings ) {
		$this->settings = $settings;
	}

	/** wp_enqueue_scripts: front end only (that hook never runs in wp-admin). */
	public function enqueue(): void {
		if ( is_admin() || ! $this->is_enabled() ) {
			return;
		}
		wp_enqueue_script(
			self::HANDLE,
			plugins_url( 'assets/widget.js', RTAC_FILE ),
			array(),
			RTAC_VERSION,
			array(
				'strategy'  => 'defer',
				'in_footer' => true,
			)
		);
	}

	/**
	 * The widget's script tag: its configuration (as JSON data) goes right
	 * before it, so it is in the document whenever the script runs, wherever a
	 * theme or optimiser prints the tag. WordPress 6.3+ honours the 'defer'
	 * strategy itself; 6.1 and 6.2 ignore it, so the attribute is added here for them.
	 */
	public function filter_script_loader_tag( string $tag, string $handle ): string {
		if ( self::HANDLE !== $handle ) {
			return $tag;
		}
		// Only the widget's own <script src> element: $tag may also hold others' inline scripts.
		$own = '#<script\b(?![^>]*\bdefer\b)(?=[^>]*\bid=["\']' . self::HANDLE . '-js["\'])#';
		return $this->config_tag() . (string) preg_replace( $own, '<script defer', $tag, 1 );
	}

	/**
	 * The configuration block. JSON_HEX_TAG writes "<" and ">" as \u003C and
	 * \u003E, so no owner-written text can close the element.
	 */
	public function config_tag(): string {
		return '<script type="application/json" id="' . esc_attr( self::CONFIG_ID ) . '">'
			. wp_json_encode( $this->config(), JSON_HEX_TAG | JSON_HEX_AMP | JSON_UNESCAPED_UNICODE )
			. "</script>\n";
	}

	public function is_enabled(): bool {
		/**
		 * Filters whether the chat widget is shown on the current page.
		 *
		 * @param bool $enabled Default true.
		 * @param int  $post_id The queried post ID, 0 on archives and the like.
		 */
		return (bool) apply_filters( 'rtac_widget_enabled', true, (int) get_queried_object_id() );
	}

	/** The exact shape widget.js reads. */
	public function config(): array {
		$w = $this->settings->widget();
		return array(
			'restUrl'    => rest_url( Rtac_Rest::NS . '/' ),
			// Logged-in users only: it is how WordPress knows them on a REST request.
			// Anonymous pages carry no nonce, so a cached page never breaks the chat.
			'nonce'      => is_user_logged_in() ? wp_create_nonce( 'wp_rest' ) : '',
			'lang'       => Rtac_Language::for_visitor(),
			'title'      => (string) $w['title'],
			'greeting'   => (string) $w['greeting'],
			'color'      => (string) $w['color'],
			'position'   => 'left' === $w['position'] ? 'left' : 'right',
			'strings'    => self::strings(),
			'contact'    => $this->settings->contact(),
			'bookingUrl' => $this->settings->booking_url(),
			// Answers stream in as they are written, unless Site Health found this host
			// buffering streams: then the widget asks for whole answers.
			'stream'     => ! Rtac_Site_Health::streaming_buffered(),
			// The widget loads its stylesheet into its own shadow root: styles never leak
			// into the theme, and the theme's never into the widget.
			'cssUrl'     => add_query_arg( 'ver', RTAC_VERSION, plugins_url( 'assets/widget.css', RTAC_FILE ) ),
		);
	}

	public static function strings(): array {
		$lead = Rtac_Leads::field_labels();
		return array(
			'open'         => __( 'Open chat', 'rtac' ),
			'close'        => __( 'Close chat', 'rtac' ),
			'send'         => __( 'Send', 'rtac' ),
			'placeholder'  => __( 'Type your question…', 'rtac' ),
			'typing'       => __( 'The assistant is typing…', 'rtac' ),
			// Shown as a note under answers quoted without a model (degraded), not as an apology.
			'unavailable'  => __( 'Limited mode: this answer comes straight from our saved information.', 'rtac' ),
			'leadTitle'    => __( 'Leave your contacts and we will get back to you', 'rtac' ),
			'leadName'     => $lead[ Rtac_Registry::META_LEAD_NAME ],
			'leadEmail'    => $lead[ Rtac_Registry::META_LEAD_EMAIL ],
			'leadPhone'    => $lead[ Rtac_Registry::META_LEAD_PHONE ],
			'leadMessage'  => $lead[ Rtac_Registry::META_LEAD_MESSAGE ],
			'leadConsent'  => __( 'I agree that my details are stored and used to contact me about this request.', 'rtac' ),
			'leadSubmit'   => __( 'Send my contacts', 'rtac' ),
			'leadThanks'   => __( 'Thank you! We will be in touch soon.', 'rtac' ),
			'contactTitle' => __( 'Contact us', 'rtac' ),
			'book'         => __( 'Book an appointment', 'rtac' ),
			'error'        => __( 'Something went wrong. Please try again.', 'rtac' ),
		);
	}
}
